file(REMOVE_RECURSE
  "CMakeFiles/test_model_files.dir/test_model_files.c.o"
  "CMakeFiles/test_model_files.dir/test_model_files.c.o.d"
  "test_model_files"
  "test_model_files.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_model_files.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
