"""Great Expectations suites, one per published table."""
