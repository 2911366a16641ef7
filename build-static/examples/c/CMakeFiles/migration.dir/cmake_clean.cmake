file(REMOVE_RECURSE
  "CMakeFiles/migration.dir/migration.c.o"
  "CMakeFiles/migration.dir/migration.c.o.d"
  "migration"
  "migration.pdb"
)

# Per-language clean rules from dependency scanning.
foreach(lang C)
  include(CMakeFiles/migration.dir/cmake_clean_${lang}.cmake OPTIONAL)
endforeach()
