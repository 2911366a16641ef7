# Empty dependencies file for test_migration.
# This may be replaced when dependencies are built.
