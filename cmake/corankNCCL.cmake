# NCCL for corank::nccl, the distributed forms over NCCL (ops/corank/nccl.cuh): nccl.h and
# libnccl, looked for in the CUDA toolkit first (CUDA 13 ships both), then under NCCL_ROOT or
# NCCL_HOME (a CMake or environment variable: NCCL's own packages, or the nvidia-nccl wheel's
# site-packages/nvidia/nccl), then the system's paths. corank_find_nccl() defines the imported
# target corank::nccl_library where both are found and sets CORANK_NCCL_FOUND in the caller's
# scope. Used by corank's build and by its installed package (corankConfig.cmake).
function(corank_find_nccl)
  if(TARGET corank::nccl_library)
    set(CORANK_NCCL_FOUND TRUE PARENT_SCOPE)
    return()
  endif()
  set(_corank_nccl_hints ${NCCL_ROOT} $ENV{NCCL_ROOT} ${NCCL_HOME} $ENV{NCCL_HOME})
  find_path(CORANK_NCCL_INCLUDE_DIR nccl.h
    HINTS ${CUDAToolkit_INCLUDE_DIRS} ${_corank_nccl_hints}
    PATH_SUFFIXES include)
  find_library(CORANK_NCCL_LIBRARY NAMES nccl libnccl.so.2
    HINTS ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_LIBRARY_ROOT}/lib ${_corank_nccl_hints}
    PATH_SUFFIXES lib lib64)
  if(CORANK_NCCL_INCLUDE_DIR AND CORANK_NCCL_LIBRARY)
    add_library(corank::nccl_library UNKNOWN IMPORTED)
    set_target_properties(corank::nccl_library PROPERTIES
      IMPORTED_LOCATION "${CORANK_NCCL_LIBRARY}"
      INTERFACE_INCLUDE_DIRECTORIES "${CORANK_NCCL_INCLUDE_DIR}")
    set(CORANK_NCCL_FOUND TRUE PARENT_SCOPE)
  else()
    set(CORANK_NCCL_FOUND FALSE PARENT_SCOPE)
  endif()
endfunction()
