# plaidml_module(NAME DIR [DEPS ...] [PUBLIC_DEPS ...]): one static, position-independent library
# per source folder (docs/design.md section 3). Sources are the folder's *.cc files.
#
# A module exposes only its own headers: they are linked into a folder of their own under the
# build tree (modules/NAME/<path below src>/*.h), and that folder, not src/, is the module's
# include directory. So a file can include another module's header only when its module lists
# that module among its dependencies (directly, or through a PUBLIC dependency's headers), and a
# layer that may not be used is simply not found. tests/layers checks the rest: that every
# include names a module the including module lists itself, and that the lists obey the table.
function(plaidml_module name dir)
  cmake_parse_arguments(M "" "" "DEPS;PUBLIC_DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cc)
  plaidml_stage_headers(${name} ${dir} stage)
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PUBLIC ${stage} ${PROJECT_SOURCE_DIR}/include)
    target_link_libraries(${name} PRIVATE ${M_DEPS} PUBLIC ${M_PUBLIC_DEPS})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${stage} ${PROJECT_SOURCE_DIR}/include)
    target_link_libraries(${name} INTERFACE ${M_DEPS} ${M_PUBLIC_DEPS})
  endif()
  plaidml_module_record(${name} ${dir} ${M_DEPS} ${M_PUBLIC_DEPS})
endfunction()

# Links DIR's headers into a folder of their own for target NAME and sets OUT_VAR to that
# folder, to be used as the include directory that exposes them (as <path below src>/x.h).
function(plaidml_stage_headers name dir out_var)
  file(GLOB headers CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.h)
  set(stage ${PROJECT_BINARY_DIR}/modules/${name})
  string(REGEX REPLACE "^src/" "" below_src ${dir})
  file(REMOVE_RECURSE ${stage})
  file(MAKE_DIRECTORY ${stage}/${below_src})
  foreach(header ${headers})
    get_filename_component(file_name ${header} NAME)
    file(CREATE_LINK ${header} ${stage}/${below_src}/${file_name} SYMBOLIC)
  endforeach()
  set(${out_var} ${stage} PARENT_SCOPE)
endfunction()

# Records a target for the layer check: its folder and the modules it lists. plaidml_module
# calls it; so do the targets made otherwise (libplaidml, the plugins, the tool).
function(plaidml_module_record name dir)
  set_property(TARGET ${name} PROPERTY PLAIDML_MODULE_DIR ${dir})
  set_property(TARGET ${name} PROPERTY PLAIDML_MODULE_DEPS ${ARGN})
  set_property(GLOBAL APPEND PROPERTY PLAIDML_MODULES ${name})
endfunction()

# Writes FILE: one line per module, "<folder> <folder of each module it lists>...", which
# tests/layers/check_layers.py compares with the includes and the layer table.
function(plaidml_write_module_manifest file)
  get_property(modules GLOBAL PROPERTY PLAIDML_MODULES)
  set(lines "")
  foreach(m ${modules})
    get_property(dir TARGET ${m} PROPERTY PLAIDML_MODULE_DIR)
    get_property(deps TARGET ${m} PROPERTY PLAIDML_MODULE_DEPS)
    set(line "${dir}")
    foreach(d ${deps})
      if(TARGET ${d})
        get_property(dep_dir TARGET ${d} PROPERTY PLAIDML_MODULE_DIR)
        if(dep_dir)
          string(APPEND line " ${dep_dir}")
        endif()
      endif()
    endforeach()
    string(APPEND lines "${line}\n")
  endforeach()
  file(WRITE ${file} "${lines}")
endfunction()

# plaidml_test(NAME DIR [DEPS ...]): one doctest executable from DIR/*.cc, registered with CTest
# (each test case is its own CTest test). Tests may include any header below src/.
function(plaidml_test name dir)
  cmake_parse_arguments(T "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${dir}/*.cc)
  # doctest_discover_tests hands test names to CTest as a CMake list, so a ';' in a name splits
  # the test in two, each running no test case and passing: such a test never ran (24 did not).
  foreach(src IN LISTS srcs)
    file(READ ${src} text)
    string(REGEX MATCH "TEST_CASE\\(\"[^\"]*;[^\"]*\"" bad "${text}")
    if(bad)
      message(FATAL_ERROR "${src}: a test name holds ';', which CTest would split: ${bad}")
    endif()
  endforeach()
  add_executable(${name} ${srcs})
  target_link_libraries(${name} PRIVATE plaidml_doctest_main ${T_DEPS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include
                                              ${PROJECT_SOURCE_DIR}/tests)
  doctest_discover_tests(${name} PROPERTIES ENVIRONMENT "PLAIDML_TEST_DATA=${PROJECT_SOURCE_DIR}/tests/data")
endfunction()

# plaidml_label_tests(<target> REGEX <regex> LABELS <label>...): gives the test cases of a
# plaidml_test program whose names match regex the CTest labels (ctest -L selects them; the
# "concurrency" label is the ThreadSanitizer pass, scripts/tsan.sh). doctest_discover_tests
# lists the cases when the program is built, so the labels are set by a CTest include file that
# runs after the list has been read (it appends to the same directory property, later).
function(plaidml_label_tests target)
  cmake_parse_arguments(L "" "REGEX" "LABELS" ${ARGN})
  set(file ${CMAKE_CURRENT_BINARY_DIR}/${target}_labels.cmake)
  file(WRITE ${file}
       "foreach(t IN LISTS ${target}_TESTS)\n"
       "  if(t MATCHES [==[${L_REGEX}]==])\n"
       "    set_tests_properties(\"\${t}\" PROPERTIES LABELS \"${L_LABELS}\")\n"
       "  endif()\n"
       "endforeach()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${file})
endfunction()
