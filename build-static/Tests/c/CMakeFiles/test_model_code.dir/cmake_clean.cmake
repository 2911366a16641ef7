file(REMOVE_RECURSE
  "CMakeFiles/test_model_code.dir/test_model_code.c.o"
  "CMakeFiles/test_model_code.dir/test_model_code.c.o.d"
  "test_model_code"
  "test_model_code.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_model_code.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
