"""The release format: the manifest's `format`, raised whenever what a release's files hold changes (CHANGELOG.md).

A module of its own, without the registry's Arrow types, so that reading a manifest loads no table library.
"""

FORMAT = 3  # a release whose manifest has no `format` is format 1
