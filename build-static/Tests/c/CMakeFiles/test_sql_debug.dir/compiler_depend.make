# Empty compiler generated dependencies file for test_sql_debug.
# This may be replaced when dependencies are built.
