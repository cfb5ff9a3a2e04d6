-- opening_tree suite: every distinct node of opening_tree with its 8 images under the D4 macros of
-- macros/d4.sql (image t of node n is the position n transformed by t).
CREATE OR REPLACE TEMP TABLE opening_tree_frames AS
WITH nodes AS (
    SELECT DISTINCT node, position_black(node) AS b, position_white(node) AS w
    FROM opening_tree
)

SELECT nodes.node, d4.t, d4_position(nodes.b, nodes.w, d4.t) AS image
FROM nodes
CROSS JOIN range(8) AS d4 (t);
