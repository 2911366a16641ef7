# Empty compiler generated dependencies file for test_processes.
# This may be replaced when dependencies are built.
