# Whether this machine has a backend's headers, as apigen read them from its spec into
# generated/<backend>/<backend>_build.cmake (tracer_headers, tracer_include_dirs as the
# spec writes them, tracer_missing_hint): CMake reads no spec with a pattern of its own.
# A ${VAR} or ${VAR:-default} in a folder is expanded here, as apigen expands it, from this
# machine's environment. The CUDA toolkit is no Debian package: on a fresh Debian 12 the
# CUDA, NCCL and NVTX backends cannot be built, and a default build leaves them out
# instead of failing. Relative folders (the repository's own) and a backend apigen has not
# written yet are taken as present: apigen, which reads the whole spec, still checks them.
function(tracer_backend_headers facts found_var why_var)
  set(${found_var} TRUE PARENT_SCOPE)
  set(${why_var} "" PARENT_SCOPE)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${facts}")
  set(tracer_headers "")
  set(tracer_include_dirs "")
  set(tracer_missing_hint "")
  include("${facts}" OPTIONAL RESULT_VARIABLE read) # sets them in this function's scope
  if(NOT read)
    return()
  endif()
  set(search "")
  foreach(dir IN LISTS tracer_include_dirs)
    set(rest "${dir}")
    set(dir "")
    while(rest MATCHES "^([^$]*)\\$\\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\\}(.*)$")
      set(value "$ENV{${CMAKE_MATCH_2}}")
      if(value STREQUAL "")
        set(value "${CMAKE_MATCH_4}")
      endif()
      string(APPEND dir "${CMAKE_MATCH_1}${value}")
      set(rest "${CMAKE_MATCH_5}")
    endwhile()
    string(APPEND dir "${rest}")
    if(NOT IS_ABSOLUTE "${dir}")
      return() # the repository's own headers
    endif()
    list(APPEND search "${dir}")
  endforeach()
  # Where apigen looks besides: the system's folders and libclang's own headers (OpenMP's
  # omp-tools.h is one).
  set(where "${search}")
  file(GLOB clang_resources /usr/lib/llvm-*/lib/clang/*/include)
  list(APPEND search /usr/local/include /usr/include/${CMAKE_LIBRARY_ARCHITECTURE} /usr/include
       ${CMAKE_C_IMPLICIT_INCLUDE_DIRECTORIES} ${clang_resources})
  foreach(header IN LISTS tracer_headers)
    set(here FALSE)
    foreach(dir IN LISTS search)
      if(EXISTS "${dir}/${header}")
        set(here TRUE)
        break()
      endif()
    endforeach()
    if(NOT here)
      if(where)
        list(JOIN where ", " where)
        set(where " in ${where} or the system's folders")
      endif()
      set(${found_var} FALSE PARENT_SCOPE)
      set(${why_var} "${header} not found${where}; ${tracer_missing_hint}" PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()
