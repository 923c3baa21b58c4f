# Register blocks from SystemRDL: one call per block, everything generated
# into the build tree (never committed).
#
#   syncfab_peakrdl(<ip> RDL <file.rdl> TITLE "<reference title>"
#                   [COUNTERS <C++ namespace>] [PARAMS NAME=VALUE ...])
#
# writes, at configure time (verilate() needs the SV to exist then):
#   ${SYNCFAB_GEN_DIR}/<ip>/<ip>_reg_pkg.sv, <ip>_reg_top.sv (+ hwif report),
#       <ip>_reg_addr_pkg.sv (every register's byte offset, for a wrapper that
#       decodes addresses; scripts/rdl_sv_addr.py)
#   ${SYNCFAB_GEN_DIR}/include/syncfab/regs/<ip>.h   (C header for the driver)
#   ${SYNCFAB_GEN_DIR}/include/syncfab/regs/<ip>_counters.hpp  (with COUNTERS:
#       the block's event counters as a C++ enum in that namespace, from the
#       RDL's counter fields; scripts/rdl_counters.py)
#   ${SYNCFAB_GEN_DIR}/regs/<ip>.json  (the map for Python readers: the cocotb
#       tests; scripts/rdl_json.py)
#   ${SYNCFAB_DOCS_DIR}/registers/<ip>.md, <ip>_html/ (register reference)
# with the RDL's top-level parameters set by PARAMS (PeakRDL's -P) in every
# output, and defines the INTERFACE library syncfab_<ip>_header (the C header's
# include folder, SYSTEM: generated code is not held to our warnings) and the
# target docs_<ip> (hooked into `docs`).
#
#   syncfab_peakrdl_regblock(<ip> RDL <file.rdl> OUT <folder> [PARAMS NAME=VALUE ...])
#
# writes only the register block and its offset package (same module and
# package names) into ${SYNCFAB_GEN_DIR}/<folder>: the same map at other
# parameters, for an RTL shape that needs them (a Verilator run lists one of
# the two folders).
#
# Each generator writes into a scratch folder first and results are copied
# only when they differ, so a re-configure does not re-verilate or rebuild
# anything whose registers did not change.
#
# Regblock options, the same for every block:
#   --cpuif apb4-flat       APB4 with plain ports (a hand-written wrapper renames them).
#   --default-reset arst_n  asynchronous active-low reset for every field and for
#                           the CPU interface (no cpuif_reset signal in the RDL).
#   --err-if-bad-addr       PSLVERR on an address that maps to nothing.
#   --err-if-bad-rw         PSLVERR on a write to a read-only register or a read
#                           of a write-only one (the access has no effect).
#   --addr-width 12         decode the block's whole 4 KiB window, so addresses
#                           past the map's end are errors too.
#   --type-style hier       struct type names follow the hierarchy
#                           (<ip>__INTR_STATUS__in_t), not property hashes.
#   --module/package-name   lowRISC naming: <ip>_reg_top, <ip>_reg_pkg.

# Runs `python -m peakrdl <args>`; a failure stops the configure with the
# generator's own message.
function(_syncfab_peakrdl_run rdl what)
  execute_process(
    COMMAND "${SYNCFAB_PYTHON}" -m peakrdl ${ARGN}
    RESULT_VARIABLE _rc
    OUTPUT_VARIABLE _out
    ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR
      "syncfab: PeakRDL ${what} failed on ${rdl} (exit ${_rc}):\n${_out}${_err}"
      "(an RDL error names its line above; 'No module named ...' means the Python "
      "environment is incomplete: 'make deps' installs PeakRDL)")
  endif()
endfunction()

# Copies every file under <from> to <to>, touching only those that changed.
function(_syncfab_peakrdl_publish from to)
  file(GLOB_RECURSE _files RELATIVE "${from}" "${from}/*")
  foreach(_f IN LISTS _files)
    get_filename_component(_d "${to}/${_f}" DIRECTORY)
    file(MAKE_DIRECTORY "${_d}")
    file(COPY_FILE "${from}/${_f}" "${to}/${_f}" ONLY_IF_DIFFERENT)
  endforeach()
endfunction()

# The register block of <ip> from <rdl> into <scratch> (-P <param> ... from ARGN).
function(_syncfab_peakrdl_regblock ip rdl scratch)
  set(_p)
  foreach(_kv IN LISTS ARGN)
    list(APPEND _p -P "${_kv}")
  endforeach()
  _syncfab_peakrdl_run("${rdl}" "regblock"
    regblock "${rdl}" -o "${scratch}" ${_p}
    --cpuif apb4-flat
    --default-reset arst_n
    --err-if-bad-addr --err-if-bad-rw
    --addr-width 12
    --type-style hier
    --module-name ${ip}_reg_top --package-name ${ip}_reg_pkg
    --hwif-report)
endfunction()

# <ip>_reg_addr_pkg.sv in <scratch>/sv from <scratch>/json/<ip>.json, which
# rdl_json.py writes from <rdl> (-P <param> ... from ARGN).
function(_syncfab_peakrdl_addr_pkg ip rdl scratch)
  set(_p)
  foreach(_kv IN LISTS ARGN)
    list(APPEND _p -P "${_kv}")
  endforeach()
  execute_process(
    COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/rdl_json.py" "${rdl}"
            "${scratch}/json/${ip}.json" ${_p}
    RESULT_VARIABLE _rc
    ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "syncfab: the JSON register map of ${rdl} failed:\n${_err}")
  endif()
  execute_process(
    COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/rdl_sv_addr.py"
            "${scratch}/json/${ip}.json" ${ip} "${scratch}/sv/${ip}_reg_addr_pkg.sv"
    RESULT_VARIABLE _rc
    ERROR_VARIABLE _err)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "syncfab: the SV offset package of ${rdl} failed:\n${_err}")
  endif()
endfunction()

function(syncfab_peakrdl_regblock ip)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "RDL;OUT" "PARAMS")
  if(NOT A_RDL OR NOT A_OUT)
    message(FATAL_ERROR "syncfab_peakrdl_regblock(${ip}): RDL and OUT are required")
  endif()
  set(_scratch "${CMAKE_CURRENT_BINARY_DIR}/peakrdl_${A_OUT}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${A_RDL}"
    "${CMAKE_SOURCE_DIR}/scripts/rdl_json.py" "${CMAKE_SOURCE_DIR}/scripts/rdl_sv_addr.py")
  file(REMOVE_RECURSE "${_scratch}")
  file(MAKE_DIRECTORY "${_scratch}/sv" "${_scratch}/json")
  _syncfab_peakrdl_regblock(${ip} "${A_RDL}" "${_scratch}/sv" ${A_PARAMS})
  _syncfab_peakrdl_addr_pkg(${ip} "${A_RDL}" "${_scratch}" ${A_PARAMS})
  _syncfab_peakrdl_publish("${_scratch}/sv" "${SYNCFAB_GEN_DIR}/${A_OUT}")
endfunction()

function(syncfab_peakrdl ip)
  cmake_parse_arguments(PARSE_ARGV 1 A "" "RDL;TITLE;COUNTERS" "PARAMS")
  if(NOT A_RDL OR NOT A_TITLE)
    message(FATAL_ERROR "syncfab_peakrdl(${ip}): RDL and TITLE are required")
  endif()
  set(_gen "${SYNCFAB_GEN_DIR}/${ip}")
  set(_inc "${SYNCFAB_GEN_DIR}/include")
  set(_doc "${SYNCFAB_DOCS_DIR}/registers")
  set(_scratch "${CMAKE_CURRENT_BINARY_DIR}/peakrdl_${ip}")
  set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${A_RDL}"
    "${CMAKE_SOURCE_DIR}/scripts/rdl_counters.py" "${CMAKE_SOURCE_DIR}/scripts/rdl_json.py"
    "${CMAKE_SOURCE_DIR}/scripts/rdl_sv_addr.py")

  file(REMOVE_RECURSE "${_scratch}")
  file(MAKE_DIRECTORY "${_scratch}/sv" "${_scratch}/inc/syncfab/regs" "${_scratch}/doc/${ip}_html"
    "${_scratch}/json")

  set(_p)
  foreach(_kv IN LISTS A_PARAMS)
    list(APPEND _p -P "${_kv}")
  endforeach()
  _syncfab_peakrdl_regblock(${ip} "${A_RDL}" "${_scratch}/sv" ${A_PARAMS})
  # C header: field masks/positions/reset values as macros, offsets through
  # the packed struct <ip>_t (offsetof), sizes through sizeof.
  _syncfab_peakrdl_run("${A_RDL}" "c-header"
    c-header "${A_RDL}" -o "${_scratch}/inc/syncfab/regs/${ip}.h" ${_p}
    --type-style hier)
  if(A_COUNTERS)
    execute_process(
      COMMAND "${SYNCFAB_PYTHON}" "${CMAKE_SOURCE_DIR}/scripts/rdl_counters.py" "${A_RDL}" ${ip}
              "${A_COUNTERS}" "${_scratch}/inc/syncfab/regs/${ip}_counters.hpp"
      RESULT_VARIABLE _rc
      ERROR_VARIABLE _err)
    if(NOT _rc EQUAL 0)
      message(FATAL_ERROR "syncfab: the counter list of ${A_RDL} failed:\n${_err}")
    endif()
  endif()
  _syncfab_peakrdl_addr_pkg(${ip} "${A_RDL}" "${_scratch}" ${A_PARAMS})
  _syncfab_peakrdl_run("${A_RDL}" "markdown"
    markdown "${A_RDL}" -o "${_scratch}/doc/${ip}.md" ${_p})
  _syncfab_peakrdl_run("${A_RDL}" "html"
    html "${A_RDL}" -o "${_scratch}/doc/${ip}_html" ${_p}
    --title "${A_TITLE}")

  _syncfab_peakrdl_publish("${_scratch}/sv" "${_gen}")
  _syncfab_peakrdl_publish("${_scratch}/inc" "${_inc}")
  _syncfab_peakrdl_publish("${_scratch}/json" "${SYNCFAB_GEN_DIR}/regs")
  _syncfab_peakrdl_publish("${_scratch}/doc" "${_doc}")

  add_library(syncfab_${ip}_header INTERFACE)
  target_include_directories(syncfab_${ip}_header SYSTEM INTERFACE "${_inc}")

  # `make docs`: the reference is written at configure time; this target only
  # names where it is.
  add_custom_target(docs_${ip}
    COMMAND ${CMAKE_COMMAND} -E echo "${A_TITLE}: ${_doc}/${ip}.md, ${_doc}/${ip}_html/index.html")
  add_dependencies(docs docs_${ip})
endfunction()
