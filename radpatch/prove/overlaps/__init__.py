"""Which entries change the same code, and apply's refusal of two with no order between them: the
overlap rules (`pairs`, `touching`, `gaps`, `gap_pairs`, `commute`, `ordering`), the installed files
they are judged on (`installed_files`), entries applied here known only from their record
(`applied`), and apply's check (`apply_check`). `list` and `verify` report the same overlaps on the
releases they know (prove.overlaps.pairs)."""
