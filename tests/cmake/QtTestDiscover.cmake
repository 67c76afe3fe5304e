# qt_discover_tests(TARGET [TIMEOUT s] [PROPERTIES ...]): one ctest entry per
# QtTest function ("TARGET.function"), found when ctest starts by running
# `TARGET -functions`, as gtest_discover_tests does for gtest cases. Each
# entry runs under the offscreen platform, and a QSKIP shows as skipped
# (QtTest prints "SKIP   :" and exits 0), never as passed.
# SERVER_STORE fn...: these functions also run as "TARGET.fn/postgres" with
# PATHSCOPE_TEST_STORE=postgres, their stores on a PostgreSQL test cluster
# (tests/support/qt_store_backends.h).
set(_qt_discover_script ${CMAKE_CURRENT_LIST_DIR}/QtTestAddTests.cmake)

function(qt_discover_tests target)
  cmake_parse_arguments(Q "" "" "PROPERTIES;SERVER_STORE" ${ARGN})
  set(include_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_qt_tests.cmake")
  set(list_file "${CMAKE_CURRENT_BINARY_DIR}/${target}_qt_tests_list.cmake")
  # Properties as "KEY\;VALUE" pairs for the script; values may hold ';'.
  string(REPLACE ";" "|" props "${Q_PROPERTIES}")
  string(REPLACE ";" "|" server "${Q_SERVER_STORE}")
  file(GENERATE OUTPUT "${include_file}" CONTENT
"execute_process(COMMAND \"${CMAKE_COMMAND}\" -DEXE=$<TARGET_FILE:${target}> -DPREFIX=${target}.
  \"-DPROPS=${props}\" \"-DSERVER=${server}\" -DOUT=${list_file} -P \"${_qt_discover_script}\" RESULT_VARIABLE rc)
if(rc EQUAL 0)
  include(\"${list_file}\")
else()
  # Not built, or it cannot list its functions: one entry that fails.
  add_test(${target}.NOT_DISCOVERED \"${CMAKE_COMMAND}\" -E false)
endif()
")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${include_file}")
endfunction()
