file(REMOVE_RECURSE
  "CMakeFiles/test_stores_config.dir/test_stores_config.c.o"
  "CMakeFiles/test_stores_config.dir/test_stores_config.c.o.d"
  "test_stores_config"
  "test_stores_config.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_stores_config.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
