# The data every binary finds beside its own bin/ folder (harness/install_layout.h), in two trees:
#   build tree: BUILD/share/wirebench/{suites,schema,python,ci} are links into the source tree, made at
#               configure time, so an edit to a suite or the reporter needs no rebuild;
#   install:    PREFIX/share/wirebench holds copies, so PREFIX can be moved or copied to a node.
# And the Debian package of the install (cpack -G DEB; ci/package builds it).
set(WB_DATA_DIRS suites schema python ci)
file(MAKE_DIRECTORY ${CMAKE_BINARY_DIR}/share/wirebench)
foreach(dir IN LISTS WB_DATA_DIRS)
  file(CREATE_LINK ${PROJECT_SOURCE_DIR}/${dir} ${CMAKE_BINARY_DIR}/share/wirebench/${dir} SYMBOLIC)
endforeach()

include(GNUInstallDirs)
set(WB_INSTALL_DATA ${CMAKE_INSTALL_DATADIR}/wirebench)
set(WB_PY_EXCLUDE PATTERN __pycache__ EXCLUDE PATTERN "*.pyc" EXCLUDE)
install(DIRECTORY suites/ DESTINATION ${WB_INSTALL_DATA}/suites)
install(DIRECTORY schema/ DESTINATION ${WB_INSTALL_DATA}/schema)
# The Python package (reporter, runner, Slurm's side) and its tools.
install(DIRECTORY python/ DESTINATION ${WB_INSTALL_DATA}/python ${WB_PY_EXCLUDE})
# From ci/: what runs on a cluster (the virtual cluster, the CI templates), not the scripts that
# build and test this repository.
install(DIRECTORY ci/templates DESTINATION ${WB_INSTALL_DATA}/ci)
install(DIRECTORY ci/vcluster.d DESTINATION ${WB_INSTALL_DATA}/ci USE_SOURCE_PERMISSIONS)
install(PROGRAMS ci/vcluster DESTINATION ${WB_INSTALL_DATA}/ci)
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# Libraries outside the system's folders (the CUDA toolkit's) stay findable from any prefix; no
# path of the source or build tree goes into an installed binary.
set_target_properties(wb-net wb-coll wb-host wb-p2p wb-step wirebench PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

# Debian package: the binaries' library dependencies come from dpkg-shlibdeps; the rest is what
# the runner, the reporter and the launcher need at run time.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME wirebench)
set(CPACK_PACKAGE_VENDOR "the wirebench team")
set(CPACK_PACKAGE_CONTACT "wirebench maintainers <wirebench@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "mpich, python3 (>= 3.9), python3-matplotlib, python3-yaml, python3-jsonschema, hwloc")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "iproute2, procps")
if(WB_HAVE_CUDA)
  # The CUDA and NCCL libraries are NVIDIA's, not Debian's: the package then needs them installed
  # in the folders the binaries were linked against.
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS ${CUDAToolkit_LIBRARY_DIR})
endif()
include(CPack)
