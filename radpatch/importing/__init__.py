"""`radpatch import`: turn the unified diffs a team already applies with `patch -pN` into registry entries.

The pipeline, one module per step: read the diffs as GNU patch reads them (unified), apply their
hunks to the installed files as GNU patch would (hunks), resolve which file each section names
(paths), turn each file's before/after source into structural rewrites (rewrites, via
statements), and write one entry per patch file, ordered as a series (emit, series).
"""
