file(REMOVE_RECURSE
  "CMakeFiles/test_model_fidelity.dir/test_model_fidelity.c.o"
  "CMakeFiles/test_model_fidelity.dir/test_model_fidelity.c.o.d"
  "test_model_fidelity"
  "test_model_fidelity.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_model_fidelity.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
