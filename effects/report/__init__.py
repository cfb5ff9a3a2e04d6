"""Static HTML pages of a release: the report (`gopat report`) and the Data Docs of its expectations."""
