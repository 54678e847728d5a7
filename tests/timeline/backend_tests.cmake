# tracer -l on the test apps of every other backend (timeline_backend_test.sh), included at
# the end of tests/CMakeLists.txt, once every app's target exists.
if(TARGET tracer AND TARGET pftrace_dump)
  set(tl_script "${CMAKE_CURRENT_SOURCE_DIR}/timeline/timeline_backend_test.sh")
  set(tl_tests "")
  # NAME BACKEND APP [ENVIRONMENT]
  macro(tl_test name backend app)
    add_test(NAME e2e_timeline_${name}
      COMMAND sh "${tl_script}" ${backend} $<TARGET_FILE:tracer> $<TARGET_FILE:pftrace_dump> ${app})
    list(APPEND tl_tests e2e_timeline_${name})
    if(NOT "${ARGN}" STREQUAL "")
      set_tests_properties(e2e_timeline_${name} PROPERTIES ENVIRONMENT "${ARGN}")
    endif()
  endmacro()
  if(TARGET testapp_ze AND TRACER_ZE_NULL_DIR)
    tl_test(ze ze $<TARGET_FILE:testapp_ze> "ZE_ENABLE_NULL_DRIVER=1;LD_LIBRARY_PATH=${TRACER_ZE_NULL_DIR}")
  endif()
  if(TARGET testapp_hip)
    tl_test(hip hip $<TARGET_FILE:testapp_hip>)
  endif()
  if(TARGET testapp_cuda)
    # The null driver emulates CUDA events, not CUPTI (tests/backends/CMakeLists.txt).
    tl_test(cuda cuda $<TARGET_FILE:testapp_cuda>
            "LD_LIBRARY_PATH=${CMAKE_BINARY_DIR}/null/cuda;TRACER_CUDA_TIMING=events")
  endif()
  if(TARGET testapps_omp)
    tl_test(omp omp "${CMAKE_CURRENT_BINARY_DIR}/testapp_omp_offload" "LD_LIBRARY_PATH=/usr/lib/llvm-19/lib")
  endif()
  if(TARGET testapp_itt_regions)
    tl_test(itt itt $<TARGET_FILE:testapp_itt_regions>)
  endif()
  if(TARGET testapp_nvtx)
    tl_test(nvtx nvtx $<TARGET_FILE:testapp_nvtx>)
  endif()
  if(TARGET testapp_mpi_mpich_c)
    add_test(NAME e2e_timeline_mpi
      COMMAND sh "${tl_script}" mpich $<TARGET_FILE:tracer> $<TARGET_FILE:pftrace_dump>
              -n 2 mpiexec.mpich "${CMAKE_CURRENT_BINARY_DIR}/mpi/mpi_app_mpich_c")
    list(APPEND tl_tests e2e_timeline_mpi)
    add_test(NAME e2e_timeline_ranks
      COMMAND sh "${CMAKE_CURRENT_SOURCE_DIR}/timeline/timeline_ranks_test.sh"
              $<TARGET_FILE:tracer> $<TARGET_FILE:pftrace_dump> mpiexec.mpich
              "${CMAKE_CURRENT_BINARY_DIR}/mpi/mpi_app_mpich_c")
    list(APPEND tl_tests e2e_timeline_ranks)
  endif()
  if(tl_tests)
    set_tests_properties(${tl_tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                         LABELS "e2e;timeline")
  endif()
endif()
