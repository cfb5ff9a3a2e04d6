-- fuseki / opening_tree step: temporary macros for the 8 symmetries of the 19x19 board (D4).
--
-- A point is its SGF text 'pd' (column letter, then row letter; 'a' = 0; row 0 = top). Transform t
-- (0..7) maps (row r, col c) to: 0 (r, c) identity; 1 (c, 18-r) rotation by 90 degrees; 2 (18-r, 18-c)
-- rotation by 180; 3 (18-c, r) rotation by 270; 4 (r, 18-c) mirror left-right; 5 (18-r, c) mirror
-- top-bottom; 6 (c, r) main diagonal; 7 (18-c, 18-r) anti-diagonal. Colours are never swapped.
-- A position is rendered 'B:<black points>|W:<white points>', each side sorted and space separated,
-- e.g. 'B:dd pd qp|W:dp pp'; the empty board is 'B:|W:'.
CREATE OR REPLACE TEMP MACRO d4_row(r, c, t) AS
    CASE t
        WHEN 0 THEN r WHEN 1 THEN c WHEN 2 THEN 18 - r WHEN 3 THEN 18 - c
        WHEN 4 THEN r WHEN 5 THEN 18 - r WHEN 6 THEN c WHEN 7 THEN 18 - c
    END;

CREATE OR REPLACE TEMP MACRO d4_col(r, c, t) AS
    CASE t
        WHEN 0 THEN c WHEN 1 THEN 18 - r WHEN 2 THEN 18 - c WHEN 3 THEN r
        WHEN 4 THEN 18 - c WHEN 5 THEN c WHEN 6 THEN r WHEN 7 THEN 18 - r
    END;

CREATE OR REPLACE TEMP MACRO d4_point(p, t) AS
    chr(97 + d4_col(ascii(p[2]) - 97, ascii(p[1]) - 97, t))
    || chr(97 + d4_row(ascii(p[2]) - 97, ascii(p[1]) - 97, t));

CREATE OR REPLACE TEMP MACRO d4_points(points, t) AS
    list_transform(points, lambda p: d4_point(p, t));

CREATE OR REPLACE TEMP MACRO position_text(black, white) AS
    'B:' || array_to_string(list_sort(black), ' ') || '|W:' || array_to_string(list_sort(white), ' ');

CREATE OR REPLACE TEMP MACRO d4_position(black, white, t) AS
    position_text(d4_points(black, t), d4_points(white, t));

CREATE OR REPLACE TEMP MACRO position_black(position) AS
    regexp_extract_all(split_part(position, '|', 1), '[a-s]{2}');

CREATE OR REPLACE TEMP MACRO position_white(position) AS
    regexp_extract_all(split_part(position, '|', 2), '[a-s]{2}');
