# Runs at install time (packaging/CMakeLists.txt): writes the tracer's module files for
# the prefix actually installed to (`cmake --install --prefix` and CPack may differ from
# the configured one), so that a site can copy them into its own module tree.
# Inputs: TRACER_SOURCE_DIR, TRACER_BINARY_DIR, TRACER_VERSION and the install folders
# TRACER_BINDIR, TRACER_LIBDIR, TRACER_MANDIR, TRACER_DOCDIR, TRACER_MODULEDIR (relative).
set(TRACER_PREFIX "${CMAKE_INSTALL_PREFIX}")
set(out "${TRACER_BINARY_DIR}/modulefiles-for-install")
file(MAKE_DIRECTORY "${out}")
# Lmod reads VERSION.lua and prefers it to VERSION; Environment Modules reads VERSION
# (files without its #%Module cookie are not modules to it).
configure_file("${TRACER_SOURCE_DIR}/modulefiles/tracer.lua.in" "${out}/${TRACER_VERSION}.lua"
               @ONLY)
configure_file("${TRACER_SOURCE_DIR}/modulefiles/tracer.tcl.in" "${out}/${TRACER_VERSION}" @ONLY)
file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/${TRACER_MODULEDIR}/tracer" TYPE FILE
     FILES "${out}/${TRACER_VERSION}.lua" "${out}/${TRACER_VERSION}")
