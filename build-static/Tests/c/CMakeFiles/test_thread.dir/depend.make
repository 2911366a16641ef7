# Empty dependencies file for test_thread.
# This may be replaced when dependencies are built.
