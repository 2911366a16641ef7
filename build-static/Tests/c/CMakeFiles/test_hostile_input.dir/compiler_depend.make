# Empty compiler generated dependencies file for test_hostile_input.
# This may be replaced when dependencies are built.
