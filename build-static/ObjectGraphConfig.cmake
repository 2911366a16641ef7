# find_package(ObjectGraph) support: defines the imported target
# ObjectGraph::objectgraph (the shared library libobjectgraph.so and its header).

####### Expanded from @PACKAGE_INIT@ by configure_package_config_file() #######
####### Any changes to this file will be overwritten by the next CMake run ####
####### The input file was ObjectGraphConfig.cmake.in                            ########

get_filename_component(PACKAGE_PREFIX_DIR "${CMAKE_CURRENT_LIST_DIR}/../../../" ABSOLUTE)

macro(set_and_check _var _file)
  set(${_var} "${_file}")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "File or directory ${_file} referenced by variable ${_var} does not exist !")
  endif()
endmacro()

macro(check_required_components _NAME)
  foreach(comp ${${_NAME}_FIND_COMPONENTS})
    if(NOT ${_NAME}_${comp}_FOUND)
      if(${_NAME}_FIND_REQUIRED_${comp})
        set(${_NAME}_FOUND FALSE)
      endif()
    endif()
  endforeach()
endmacro()

####################################################################################

set_and_check(ObjectGraph_INCLUDE_DIR "${PACKAGE_PREFIX_DIR}/include")
set_and_check(_ObjectGraph_LIBDIR "${PACKAGE_PREFIX_DIR}/lib")

if(NOT TARGET ObjectGraph::objectgraph)
  add_library(ObjectGraph::objectgraph SHARED IMPORTED)
  set_target_properties(ObjectGraph::objectgraph PROPERTIES
    IMPORTED_LOCATION "${_ObjectGraph_LIBDIR}/libobjectgraph.so.0.1.0"
    IMPORTED_SONAME "libobjectgraph.so.0"
    INTERFACE_INCLUDE_DIRECTORIES "${ObjectGraph_INCLUDE_DIR}")
endif()

set(ObjectGraph_LIBRARIES ObjectGraph::objectgraph)
check_required_components(ObjectGraph)
