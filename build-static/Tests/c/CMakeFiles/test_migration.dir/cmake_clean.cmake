file(REMOVE_RECURSE
  "CMakeFiles/test_migration.dir/test_migration.c.o"
  "CMakeFiles/test_migration.dir/test_migration.c.o.d"
  "test_migration"
  "test_migration.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/test_migration.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
