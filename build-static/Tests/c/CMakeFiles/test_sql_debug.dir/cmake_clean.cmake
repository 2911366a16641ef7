file(REMOVE_RECURSE
  "CMakeFiles/test_sql_debug.dir/test_sql_debug.c.o"
  "CMakeFiles/test_sql_debug.dir/test_sql_debug.c.o.d"
  "test_sql_debug"
  "test_sql_debug.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_sql_debug.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
