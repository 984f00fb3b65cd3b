# Installation: headers, libplaidml.so (+ SONAME link), plaidml.pc and a CMake
# package (find_package(plaidml) -> plaidml::plaidml).
include(CMakePackageConfigHelpers)

install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/plaidml DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp")

if(TARGET plaidml)
  install(TARGETS plaidml EXPORT plaidmlTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT plaidmlTargets NAMESPACE plaidml:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/plaidml)
endif()

# The ONNX importer: its own library, pkg-config file and CMake component
# (find_package(plaidml COMPONENTS onnx) -> plaidml::onnx).
if(TARGET plaidml_onnx)
  set_target_properties(plaidml_onnx PROPERTIES EXPORT_NAME onnx)
  install(TARGETS plaidml_onnx EXPORT plaidmlTargets LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR})
  configure_file(${PROJECT_SOURCE_DIR}/pkgconfig/plaidml-onnx.pc.in
                 ${PROJECT_BINARY_DIR}/plaidml-onnx.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/plaidml-onnx.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endif()

configure_file(${PROJECT_SOURCE_DIR}/pkgconfig/plaidml.pc.in ${PROJECT_BINARY_DIR}/plaidml.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/plaidml.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/plaidmlConfig.cmake.in
  ${PROJECT_BINARY_DIR}/plaidmlConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/plaidml)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/plaidmlConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/plaidmlConfig.cmake ${PROJECT_BINARY_DIR}/plaidmlConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/plaidml)
