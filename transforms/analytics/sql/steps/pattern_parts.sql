-- pattern_parts: the sample of keys that cuts each family's and symmetry's complete counts into parts
-- (effects/pattern_parts.py key_sample, transforms/patterns/parts.py plan_parts): the distinct keys of
-- `pattern_keys` (the build's shards, or the key samples the runs keep) whose hash is 0 modulo the variable
-- `sample_modulus`, in key order.
-- It depends on the set of keys only, not on how the games were sharded or which build saw them first: a full and
-- an incremental build over the same games cut the same parts and write the same part files
-- (docs/releases.md#parts). The modulus is a variable, not a parameter: a prepared parameter kept the filter
-- from folding into the scan (ten times slower on pro-sample's shards).
SELECT DISTINCT family, symmetry, key
FROM pattern_keys
WHERE hash(key) % getvariable('sample_modulus') = 0
ORDER BY family, symmetry, key
