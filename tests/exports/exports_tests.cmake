# --otf2 and --flame on the test apps of every backend that has them, and MPI jobs
# (exports_test.sh), plus the usage errors (exports_usage_test.sh). Included at the end
# of tests/CMakeLists.txt, once every app's target exists.
if(TARGET tracer)
  set(ex_script "${CMAKE_CURRENT_SOURCE_DIR}/exports/exports_test.sh")
  set(ex_tests "")
  # NAME APP ENVIRONMENT [ARGS...]: ARGS go to exports_test.sh before APP.
  macro(ex_test name app environment)
    add_test(NAME e2e_exports_${name}
      COMMAND sh "${ex_script}" $<TARGET_FILE:tracer> ${ARGN} ${app})
    list(APPEND ex_tests e2e_exports_${name})
    set_tests_properties(e2e_exports_${name} PROPERTIES ENVIRONMENT "${environment}")
  endmacro()
  set(ex_pocl "POCL_CACHE_DIR=${CMAKE_BINARY_DIR}/pocl-cache")
  if(TARGET testapp_vadd)
    ex_test(vadd $<TARGET_FILE:testapp_vadd> "${ex_pocl}")
    # Four threads submitting at once: every command names its own call.
    ex_test(threads $<TARGET_FILE:testapp_threads> "${ex_pocl}")
    # Minimal mode: calls come in batches, after later ones (the reader's horizon).
    ex_test(buffers_minimal $<TARGET_FILE:testapp_buffers> "${ex_pocl}" -o "-m minimal")
  endif()
  if(TARGET testapp_itt_regions)
    ex_test(itt $<TARGET_FILE:testapp_itt_regions> "")
  endif()
  if(TARGET testapp_nvtx)
    ex_test(nvtx $<TARGET_FILE:testapp_nvtx> "")
  endif()
  if(TARGET testapp_ze AND TRACER_ZE_NULL_DIR)
    ex_test(ze $<TARGET_FILE:testapp_ze> "ZE_ENABLE_NULL_DRIVER=1;LD_LIBRARY_PATH=${TRACER_ZE_NULL_DIR}")
  endif()
  if(TARGET testapp_hip)
    ex_test(hip $<TARGET_FILE:testapp_hip> "")
  endif()
  if(TARGET testapp_cudart)
    # The runtime's calls over the driver's: nested calls, both levels. Every call an
    # event (--every-call): counted getters have none in OTF2.
    ex_test(cudart $<TARGET_FILE:testapp_cudart>
            "LD_LIBRARY_PATH=${CMAKE_BINARY_DIR}/null/cuda;TRACER_CUDA_TIMING=events"
            -o --every-call)
  endif()
  if(TARGET testapps_omp)
    # OMPT target regions, recorded at their end around their data operations.
    ex_test(omp "${CMAKE_CURRENT_BINARY_DIR}/testapp_omp_offload"
            "LD_LIBRARY_PATH=/usr/lib/llvm-19/lib" -o "-b omp")
  endif()
  if(TARGET testapp_mpi_mpich_c)
    ex_test(mpich "${CMAKE_CURRENT_BINARY_DIR}/mpi/mpi_app_mpich_c" "" -n 4 mpiexec.mpich)
    # A rank left out: the world keeps its place.
    ex_test(mpich_traced_ranks "${CMAKE_CURRENT_BINARY_DIR}/mpi/mpi_app_mpich_c" ""
            -n 3 mpiexec.mpich -o "--traced-ranks 0,2")
  endif()
  if(TARGET testapp_mpi_openmpi_c)
    ex_test(openmpi "${CMAKE_CURRENT_BINARY_DIR}/mpi/mpi_app_openmpi_c" "" -n 2 mpirun.openmpi)
  endif()
  if(TARGET testapp_vadd)
    add_test(NAME e2e_exports_usage
      COMMAND sh "${CMAKE_CURRENT_SOURCE_DIR}/exports/exports_usage_test.sh"
              $<TARGET_FILE:tracer> $<TARGET_FILE:testapp_vadd>)
    list(APPEND ex_tests e2e_exports_usage)
    set_tests_properties(e2e_exports_usage PROPERTIES ENVIRONMENT "${ex_pocl}")
  endif()
  if(ex_tests)
    set_tests_properties(${ex_tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                         LABELS "e2e;exports")
  endif()
endif()

# babeltrace2 with the plugin filter.tracer.decode against `tracer -t`, field by field,
# on the default-mode traces of every backend's app (babeltrace2_test.sh).
if(TARGET tracer AND TARGET tracer_babeltrace2)
  set(bt_script "${CMAKE_CURRENT_SOURCE_DIR}/exports/babeltrace2_test.sh")
  set(bt_plugins "${CMAKE_BINARY_DIR}/lib/babeltrace2")
  set(bt_tests "")
  # NAME APP ENVIRONMENT [ARGS...]: ARGS go to babeltrace2_test.sh before APP (a list:
  # the app and its arguments).
  macro(bt_test name app environment)
    add_test(NAME e2e_babeltrace2_${name}
      COMMAND sh "${bt_script}" $<TARGET_FILE:tracer> "${bt_plugins}" ${ARGN} ${app})
    list(APPEND bt_tests e2e_babeltrace2_${name})
    set_tests_properties(e2e_babeltrace2_${name} PROPERTIES ENVIRONMENT "${environment}")
  endmacro()
  set(bt_pocl "POCL_CACHE_DIR=${CMAKE_BINARY_DIR}/pocl-cache")
  if(TARGET testapp_vadd)
    bt_test(vadd $<TARGET_FILE:testapp_vadd> "${bt_pocl}")
    bt_test(threads $<TARGET_FILE:testapp_threads> "${bt_pocl}")
  endif()
  if(TARGET testapp_decode)
    # Enum and status names, out values, NULL out-pointers. Its expectations unused.
    bt_test(decode "$<TARGET_FILE:testapp_decode>;/dev/null" "${bt_pocl}")
  endif()
  if(TARGET testapp_itt_regions)
    bt_test(itt $<TARGET_FILE:testapp_itt_regions> "")
  endif()
  if(TARGET testapp_nvtx)
    bt_test(nvtx $<TARGET_FILE:testapp_nvtx> "")
  endif()
  if(TARGET testapp_ze AND TRACER_ZE_NULL_DIR)
    bt_test(ze $<TARGET_FILE:testapp_ze> "ZE_ENABLE_NULL_DRIVER=1;LD_LIBRARY_PATH=${TRACER_ZE_NULL_DIR}")
  endif()
  if(TARGET testapp_hip)
    bt_test(hip $<TARGET_FILE:testapp_hip> "")
  endif()
  if(TARGET testapp_cudart)
    bt_test(cudart $<TARGET_FILE:testapp_cudart>
            "LD_LIBRARY_PATH=${CMAKE_BINARY_DIR}/null/cuda;TRACER_CUDA_TIMING=events"
            -o --every-call)
  endif()
  if(TARGET testapps_omp)
    bt_test(omp "${CMAKE_CURRENT_BINARY_DIR}/testapp_omp_offload"
            "LD_LIBRARY_PATH=/usr/lib/llvm-19/lib" -o "-b omp")
  endif()
  if(TARGET testapp_mpi_mpich_c)
    bt_test(mpich "${CMAKE_CURRENT_BINARY_DIR}/mpi/mpi_app_mpich_c" "" -n 2 mpiexec.mpich)
  endif()
  if(TARGET testapp_mpi_openmpi_c)
    bt_test(openmpi "${CMAKE_CURRENT_BINARY_DIR}/mpi/mpi_app_openmpi_c" "" -n 2 mpirun.openmpi)
  endif()
  if(bt_tests)
    set_tests_properties(${bt_tests} PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 300
                         LABELS "e2e;exports;babeltrace2")
  endif()
endif()

# call_stacks fed as the reader feeds it, against the enters and leaves each case gives.
add_executable(call_stacks_unit_test "${CMAKE_CURRENT_SOURCE_DIR}/exports/call_stacks_unit_test.c")
target_link_libraries(call_stacks_unit_test PRIVATE tracer_exports)
add_test(NAME call_stacks_unit COMMAND call_stacks_unit_test)
