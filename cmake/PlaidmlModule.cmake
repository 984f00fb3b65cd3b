# plaidml_module(NAME DIR [DEPS ...]): one static, position-independent library per source folder
# (DESIGN.md section 3). Sources are the folder's *.cc files.
function(plaidml_module name dir)
  cmake_parse_arguments(M "" "" "DEPS;PUBLIC_DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/${dir}/*.cc)
  if(srcs)
    add_library(${name} STATIC ${srcs})
    target_include_directories(${name} PUBLIC ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
    target_link_libraries(${name} PRIVATE ${M_DEPS} PUBLIC ${M_PUBLIC_DEPS})
  else()
    add_library(${name} INTERFACE)
    target_include_directories(${name} INTERFACE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include)
    target_link_libraries(${name} INTERFACE ${M_DEPS} ${M_PUBLIC_DEPS})
  endif()
endfunction()

# plaidml_test(NAME DIR [DEPS ...]): one doctest executable from DIR/*.cc, registered with CTest
# (each test case is its own CTest test).
function(plaidml_test name dir)
  cmake_parse_arguments(T "" "" "DEPS" ${ARGN})
  file(GLOB srcs CONFIGURE_DEPENDS ${dir}/*.cc)
  add_executable(${name} ${srcs})
  target_link_libraries(${name} PRIVATE plaidml_doctest_main ${T_DEPS})
  target_include_directories(${name} PRIVATE ${PROJECT_SOURCE_DIR}/src ${PROJECT_SOURCE_DIR}/include
                                              ${PROJECT_SOURCE_DIR}/tests)
  doctest_discover_tests(${name} PROPERTIES ENVIRONMENT "PLAIDML_TEST_DATA=${PROJECT_SOURCE_DIR}/tests/data")
endfunction()
