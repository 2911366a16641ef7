# Empty compiler generated dependencies file for abi_fuzz.
# This may be replaced when dependencies are built.
