# One verilated static library per RTL top, from that top's .f file list.
#
#   syncfab_verilate(<lib> TOP <module> FILELIST <file.f> [LARGE [OPT_FAST <-Ox>]]
#                    [COVERAGE] [SYSTEMC] [PREFIX <class>] [GEN_REPLACE <folder>=<folder> ...]
#                    [PARAMS Name=Value ...] [ARGS <extra verilator args> ...])
#
# The model class is V<module> unless PREFIX names another (Verilator's
# --prefix): two models of one top at different parameters link into one
# binary only with different classes. GEN_REPLACE lists, for this model
# only, a generated folder (under ${SYNCFAB_GEN}) read instead of one the .f
# names: the same generated sources at other parameters (a register block of
# another size), without a second set of file lists.
#
# A model is compiled as one translation unit (CMake's unity build) unless it
# is LARGE: the generated files of a small model are each mostly the parse of
# the Verilator headers, so one unit costs a fraction of ten. A LARGE model
# (a whole switch or NIC) is compiled file by file, in parallel, its per-cycle
# code at OPT_FAST (default SYNCFAB_VL_OPT_FAST) and its once-run code at
# SYNCFAB_VL_OPT_SLOW.
#
# The .f format (scripts/filelist.py reads it for CMake, cocotb and lint): one path per line,
# relative to the .f file's folder; `+incdir+<dir>` adds an include folder;
# `-F <other.f>` includes another list; `//` and `#` start comments;
# `${SYNCFAB_GEN}` stands for the build tree's generated/ folder (generated
# packages and register blocks). Files are verilated in list order (packages
# first).
#
# COVERAGE measures the RTL's cover points (SF_COVER, rtl/common/syncfab_assert.svh;
# Verilator --coverage-user): the model counts them and the harness writes the
# counts with VerilatedContext::coveragep()->write(). Only the user's cover
# points, no line or toggle coverage. A model without COVERAGE carries no
# coverage code at all (Verilator drops cover statements), so the speed of the
# models the benches time does not depend on how many cover points the RTL has.
#
# SYNCFAB_COVERAGE (the coverage tree of `make coverage`, build-cov; see
# docs/coverage.md) verilates every model with line, toggle and user coverage
# and, for a top that has one, reads rtl/coverage/<top>.cover.f too (its
# design list and the bind modules of its named functional cover points).
# The generated sources carry no coverage (rtl/coverage/coverage.vlt says
# why). Nothing of it reaches the normal tree, whose models stay as fast as
# the benches measure.
#
# SYSTEMC verilates the top as a SystemC module (Verilator --sc: sc_in /
# sc_out ports, evaluated by the SystemC kernel, time from sc_time_stamp) for
# the virtual platform (docs/virtual-platform.md). Such a model links the
# runtime compiled with VM_SC=1 (syncfab_verilated_sc_rt) and SystemC; a
# binary links either runtime, never both.
#
# Every model is built with FST tracing and struct fields compiled in; tracing
# is switched on at run time by the harness, not by rebuilding. The Verilator
# runtime (verilated.cpp and friends) is compiled once, into
# syncfab_verilated_rt, instead of once per model.

option(SYNCFAB_COVERAGE "verilate every model with line, toggle and user coverage (make coverage)" OFF)
option(SYNCFAB_COV_TOP8 "the coverage tree builds the 8-port switch and its tests too" OFF)

# The coverage tree's configuration for the hwif structs of the hand-written
# RTL (scripts/coverage/regblock_vlt.py says why), rewritten when an RTL file
# changes.
if(SYNCFAB_COVERAGE)
  file(GLOB_RECURSE _sv CONFIGURE_DEPENDS "${CMAKE_SOURCE_DIR}/rtl/*.sv")
  set(SYNCFAB_COV_REGBLOCK_VLT "${CMAKE_BINARY_DIR}/coverage_regblock.vlt")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               ${_sv} "${CMAKE_SOURCE_DIR}/scripts/coverage/regblock_vlt.py")
  execute_process(
    COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/coverage/regblock_vlt.py"
            --out "${SYNCFAB_COV_REGBLOCK_VLT}" ${_sv}
    RESULT_VARIABLE _rc ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "syncfab: regblock_vlt.py failed:\n${_err}")
  endif()
endif()

find_package(verilator 5.006 REQUIRED HINTS $ENV{VERILATOR_ROOT} /usr/share/verilator)
find_package(ZLIB REQUIRED)
find_package(Threads REQUIRED)

# verilated_cov.cpp is linked only into the binaries of COVERAGE models (a
# static library member nothing else references).
set(SYNCFAB_VL_RUNTIME_SOURCES
    ${VERILATOR_ROOT}/include/verilated.cpp
    ${VERILATOR_ROOT}/include/verilated_cov.cpp
    ${VERILATOR_ROOT}/include/verilated_fst_c.cpp
    ${VERILATOR_ROOT}/include/verilated_threads.cpp)

# Compiler optimisation of the models' per-cycle code (Verilator's OPT_FAST
# files) and of everything else they hold (OPT_SLOW: constructors, tracing
# setup, initial blocks). docs/bench-sim.md has the build time and speed of
# each choice.
set(SYNCFAB_VL_OPT_FAST "-O2" CACHE STRING "compiler optimisation of the verilated eval code")
set(SYNCFAB_VL_OPT_SLOW "-O0" CACHE STRING "compiler optimisation of the verilated setup code")
# Debug information for generated C++ is rarely read (a waveform is how a model
# is debugged) and costs compile time and disk: off unless asked for.
option(SYNCFAB_VL_DEBUG_INFO "compile the verilated models with debug information" OFF)

if(NOT TARGET syncfab_verilated_rt)
  add_library(syncfab_verilated_rt STATIC ${SYNCFAB_VL_RUNTIME_SOURCES})
  target_include_directories(syncfab_verilated_rt SYSTEM
    PUBLIC ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
  # No VM_COVERAGE here: verilate() defines it per model (1 for a COVERAGE
  # one), and no runtime source reads it.
  target_compile_definitions(syncfab_verilated_rt PUBLIC
    VM_SC=0 VM_TRACE=1 VM_TRACE_VCD=0 VM_TRACE_FST=1)
  target_compile_options(syncfab_verilated_rt PRIVATE ${VERILATOR_CFLAGS} -O2)
  target_link_libraries(syncfab_verilated_rt PUBLIC ZLIB::ZLIB Threads::Threads)
endif()

# The same runtime for SystemC models, with the FST writer that follows the
# SystemC kernel's time (verilated_fst_sc.cpp).
if(NOT TARGET syncfab_verilated_sc_rt)
  add_library(syncfab_verilated_sc_rt STATIC
    ${VERILATOR_ROOT}/include/verilated.cpp
    ${VERILATOR_ROOT}/include/verilated_fst_c.cpp
    ${VERILATOR_ROOT}/include/verilated_fst_sc.cpp
    ${VERILATOR_ROOT}/include/verilated_threads.cpp)
  target_include_directories(syncfab_verilated_sc_rt SYSTEM
    PUBLIC ${VERILATOR_ROOT}/include ${VERILATOR_ROOT}/include/vltstd)
  target_compile_definitions(syncfab_verilated_sc_rt PUBLIC
    VM_SC=1 VM_TRACE=1 VM_TRACE_VCD=0 VM_TRACE_FST=1)
  target_compile_options(syncfab_verilated_sc_rt PRIVATE ${VERILATOR_CFLAGS} -O2)
  target_link_libraries(syncfab_verilated_sc_rt PUBLIC syncfab_systemc ZLIB::ZLIB Threads::Threads)
endif()

# A .f file list and the shared flags (rtl/verilator_flags.f) are read by
# scripts/filelist.py, the one parser the cocotb runner and lint use too (its
# docstring has the format). Every file read is a configure dependency.
function(syncfab_read_filelist filelist out_srcs out_incdirs)
  execute_process(
    COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/filelist.py"
            --gen "${SYNCFAB_GEN_DIR}" --format cmake "${filelist}"
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0 OR NOT _out MATCHES "^([^\n]*)\n([^\n]*)\n([^\n]*)\n?$")
    message(FATAL_ERROR "syncfab: file list ${filelist}: ${_err}")
  endif()
  set(_srcs "${CMAKE_MATCH_1}")
  set(_incs "${CMAKE_MATCH_2}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_MATCH_3})
  set(${out_srcs} "${_srcs}" PARENT_SCOPE)
  set(${out_incdirs} "${_incs}" PARENT_SCOPE)
endfunction()

function(syncfab_verilator_flags out)
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
               "${CMAKE_SOURCE_DIR}/rtl/verilator_flags.f" "${CMAKE_SOURCE_DIR}/scripts/filelist.py")
  execute_process(
    COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/filelist.py" --flags --format cmake
    RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _err
    OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "syncfab: ${_err}")
  endif()
  set(${out} "${_out}" PARENT_SCOPE)
endfunction()

function(syncfab_verilate lib)
  cmake_parse_arguments(SV "LARGE;COVERAGE;SYSTEMC" "TOP;FILELIST;OPT_FAST;PREFIX" "PARAMS;ARGS;GEN_REPLACE"
                        ${ARGN})
  if(SV_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "syncfab_verilate(${lib}): unknown arguments ${SV_UNPARSED_ARGUMENTS}")
  endif()
  if(SV_OPT_FAST AND NOT SV_LARGE)
    message(FATAL_ERROR "syncfab_verilate(${lib}): OPT_FAST applies to LARGE models only")
  endif()
  if(NOT SV_OPT_FAST)
    set(SV_OPT_FAST "${SYNCFAB_VL_OPT_FAST}")
  endif()
  if(NOT SV_TOP OR NOT SV_FILELIST)
    message(FATAL_ERROR "syncfab_verilate(${lib}) needs TOP and FILELIST")
  endif()
  if(NOT SV_PREFIX)
    set(SV_PREFIX "V${SV_TOP}")
  endif()
  syncfab_read_filelist("${SV_FILELIST}" _srcs _incs)
  set(_fcov "${CMAKE_SOURCE_DIR}/rtl/coverage/${SV_TOP}.cover.f")
  if(SYNCFAB_COVERAGE AND EXISTS "${_fcov}")
    syncfab_read_filelist("${_fcov}" _fcov_srcs _fcov_incs)
    list(APPEND _srcs ${_fcov_srcs})
    list(APPEND _incs ${_fcov_incs})
    list(REMOVE_DUPLICATES _srcs)
    list(REMOVE_DUPLICATES _incs)
  endif()
  foreach(_r IN LISTS SV_GEN_REPLACE)
    if(NOT _r MATCHES "^([^=/]+)=([^=/]+)$")
      message(FATAL_ERROR "syncfab_verilate(${lib}): GEN_REPLACE ${_r} is not <folder>=<folder>")
    endif()
    set(_from "${SYNCFAB_GEN_DIR}/${CMAKE_MATCH_1}/")
    set(_to "${SYNCFAB_GEN_DIR}/${CMAKE_MATCH_2}/")
    if(NOT _srcs MATCHES "${CMAKE_MATCH_1}/")
      message(FATAL_ERROR "syncfab_verilate(${lib}): GEN_REPLACE ${_r}: ${SV_FILELIST} lists nothing in ${_from}")
    endif()
    string(REPLACE "${_from}" "${_to}" _srcs "${_srcs}")
  endforeach()
  syncfab_verilator_flags(_args)
  list(APPEND _args -O3)
  foreach(_inc IN LISTS _incs)
    list(APPEND _args "+incdir+${_inc}")
  endforeach()
  foreach(_p IN LISTS SV_PARAMS)
    list(APPEND _args "-G${_p}")
  endforeach()
  if(SYNCFAB_COVERAGE)
    list(APPEND _args --coverage-line --coverage-toggle --coverage-user
         "${CMAKE_SOURCE_DIR}/rtl/coverage/coverage.vlt" "${SYNCFAB_COV_REGBLOCK_VLT}")
  elseif(SV_COVERAGE)
    list(APPEND _args --coverage-user)
  endif()
  list(APPEND _args ${SV_ARGS})

  # What this library is (scripts/bench_sim.py names models by it).
  list(JOIN SV_PARAMS " " _params)
  file(WRITE "${CMAKE_BINARY_DIR}/verilated/${lib}.txt"
       "top: ${SV_TOP}\nparams: ${_params}\nfilelist: ${SV_FILELIST}\nclass: ${SV_PREFIX}\n")

  add_library(${lib} STATIC)
  if(SV_LARGE)
    set(_opt OPT_FAST ${SV_OPT_FAST} OPT_SLOW ${SYNCFAB_VL_OPT_SLOW} OPT_GLOBAL -O2)
  else()
    # Per-file flags would keep a file out of the unity build.
    set(_opt)
    set_target_properties(${lib} PROPERTIES UNITY_BUILD ON UNITY_BUILD_BATCH_SIZE 0)
  endif()
  set(_sc)
  set(_rt syncfab_verilated_rt)
  if(SV_SYSTEMC)
    set(_sc SYSTEMC)
    set(_rt syncfab_verilated_sc_rt)
  endif()
  verilate(${lib} ${_sc}
    SOURCES ${_srcs}
    TOP_MODULE ${SV_TOP}
    PREFIX ${SV_PREFIX}
    TRACE_FST TRACE_STRUCTS
    VERILATOR_ARGS ${_args}
    ${_opt})
  if(NOT SYNCFAB_VL_DEBUG_INFO)
    target_compile_options(${lib} PRIVATE -g0)
  endif()

  # <class>__inputs.hpp: the model's inputs for the harness's idle skipping
  # (scripts/vl_inputs.py, from the ports in <class>.h, written by Verilator
  # at configure time just above).
  # A SystemC model has sc_in ports and no such harness.
  if(NOT SV_SYSTEMC)
    set(_mdir "${CMAKE_CURRENT_BINARY_DIR}/CMakeFiles/${lib}.dir/${SV_PREFIX}.dir")
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
                 "${CMAKE_SOURCE_DIR}/scripts/vl_inputs.py")
    execute_process(
      COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/vl_inputs.py"
              "${_mdir}/${SV_PREFIX}.h" "${_mdir}/${SV_PREFIX}__inputs.hpp"
      RESULT_VARIABLE _rc ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "syncfab: vl_inputs.py failed for ${lib}:\n${_err}")
    endif()
  endif()

  # Drop the per-model copy of the runtime; link the shared one instead.
  get_target_property(_all ${lib} SOURCES)
  list(FILTER _all EXCLUDE REGEX "/include/verilated[a-z_]*\\.cpp$")
  set_property(TARGET ${lib} PROPERTY SOURCES "${_all}")
  # The symbol table (one constructor naming every scope) and the trace code
  # (one statement per traced signal bit-field) are huge straight-line
  # functions that gcc optimises for minutes on a large top, for code that
  # runs once (Syms, *__Slow) or only with tracing on (Trace): -O0 for them.
  if(SV_LARGE)
    set(_cold ${_all})
    list(FILTER _cold INCLUDE REGEX "__(Syms|Trace__[0-9]+(__Slow)?)\\.cpp$")
    set_source_files_properties(${_cold} PROPERTIES COMPILE_OPTIONS "-O0")
  endif()
  target_link_libraries(${lib} PUBLIC ${_rt})
  # The generated model header includes verilated headers; keep their warnings
  # out of our -Werror builds.
  get_target_property(_vinc ${lib} INTERFACE_INCLUDE_DIRECTORIES)
  set_property(TARGET ${lib} PROPERTY INTERFACE_SYSTEM_INCLUDE_DIRECTORIES "${_vinc}")
endfunction()
