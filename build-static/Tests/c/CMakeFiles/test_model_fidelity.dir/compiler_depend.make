# Empty compiler generated dependencies file for test_model_fidelity.
# This may be replaced when dependencies are built.
