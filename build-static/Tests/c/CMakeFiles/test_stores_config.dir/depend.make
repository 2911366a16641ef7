# Empty dependencies file for test_stores_config.
# This may be replaced when dependencies are built.
