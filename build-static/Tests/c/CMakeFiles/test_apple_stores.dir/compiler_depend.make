# Empty compiler generated dependencies file for test_apple_stores.
# This may be replaced when dependencies are built.
