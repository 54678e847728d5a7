# Debian packages through CPack (`cpack -G DEB` in the build folder, or `make deb`):
#   tracer      the tracer, its interposers and clock plugin, the example, man page,
#               module files and docs
#   tracer-dev  apigen with the specs and templates: what adding or regenerating a
#               backend needs. Apart because apigen pulls in libclang 19 (libclang1-19,
#               libllvm19: some 100 MB) and the compiler's own headers, which tracing
#               does not need, and because regenerating needs the APIs' -dev headers
#               anyway: a cluster installs `tracer`, a contributor also `tracer-dev`.
# Dependencies come by package name: the libraries the files link, found by
# dpkg-shlibdeps (liblttng-ust1, libyaml-0-2, libclang-19-19, ...), plus what they run or
# load without linking it, listed below.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME tracer)
set(CPACK_PACKAGE_VERSION "${PROJECT_VERSION}")
set(CPACK_PACKAGE_VENDOR "tracer project")
set(CPACK_PACKAGE_CONTACT "tracer maintainers <tracer@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "trace the API calls of HPC and AI applications through LTTng")
set(CPACK_RESOURCE_FILE_LICENSE "${CMAKE_SOURCE_DIR}/LICENSE")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
# The module files name the prefix they were installed to: install with DESTDIR so that
# the prefix they see is /usr, not CPack's staging folder.
set(CPACK_SET_DESTDIR ON)
set(CPACK_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL tracer dev)
set(CPACK_COMPONENT_DEV_DEPENDS tracer)
set(CPACK_DEBIAN_ENABLE_COMPONENT_DEPENDS ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# The interposers link libtracer_runtime.so from their own folder ($ORIGIN).
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS_PRIVATE_DIRS
    "${CMAKE_BINARY_DIR}/lib" "${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/tracer")

set(CPACK_DEBIAN_TRACER_PACKAGE_NAME tracer)
set(CPACK_COMPONENT_TRACER_DESCRIPTION
    "trace the API calls of HPC and AI applications through LTTng
 tracer runs an application with its OpenCL (and other backends') API calls
 recorded through LTTng-UST, then prints where the time went: host calls,
 device kernels, memory transfers with bytes and bandwidth. Includes
 environment modules for Lmod and Environment Modules and `tracer --check`.")
# lttng-sessiond: started by the tracer when no session daemon runs. liblttng-ctl (every
# recording) and libdw (native frames' names) are loaded when a command needs them, not
# linked (cli/loaded/loaded_library.h), so dpkg-shlibdeps does not see them: by name here.
set(CPACK_DEBIAN_TRACER_PACKAGE_DEPENDS "lttng-tools (>= 2.13)")
foreach(package IN ITEMS "${TRACER_LTTNG_CTL_PACKAGE_NAME}" "${TRACER_DW_PACKAGE_NAME}")
  if(package)
    string(APPEND CPACK_DEBIAN_TRACER_PACKAGE_DEPENDS ", ${package}")
  endif()
endforeach()
# An OpenCL platform for the example; babeltrace2 reads the traces with other tools;
# libotf2 writes --otf2's archives (loaded then, not linked: the tracer runs without it).
set(CPACK_DEBIAN_TRACER_PACKAGE_RECOMMENDS "pocl-opencl-icd | opencl-icd, babeltrace2")
if(TRACER_OTF2_PACKAGE_NAME)
  string(APPEND CPACK_DEBIAN_TRACER_PACKAGE_RECOMMENDS ", ${TRACER_OTF2_PACKAGE_NAME}")
endif()
if(TRACER_JANSSON_PACKAGE_NAME) # reads JSON results for tracer diff (loaded then)
  string(APPEND CPACK_DEBIAN_TRACER_PACKAGE_RECOMMENDS ", ${TRACER_JANSSON_PACKAGE_NAME}")
endif()
set(CPACK_DEBIAN_TRACER_PACKAGE_SUGGESTS "lmod | environment-modules")

set(CPACK_DEBIAN_DEV_PACKAGE_NAME tracer-dev)
set(CPACK_COMPONENT_DEV_DESCRIPTION
    "tracer's generator of API models and tracers from C headers (apigen)
 apigen parses a backend's C headers with libclang into an exact YAML model of
 its API and renders templates over it into an LD_PRELOAD interposer and an
 LTTng-UST tracepoint provider. With the backend specs and templates.")
# libclang parses with the compiler's own headers (stddef.h, ...); clang-format lays out
# the C apigen writes (generator/format.c).
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "libclang-common-19-dev, clang-format")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS "liblttng-ust-dev, build-essential")

include(CPack)
