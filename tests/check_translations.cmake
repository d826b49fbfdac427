# Fails when a .ts file lacks a translation or when lupdate finds strings the .ts does not hold yet.
# Usage: cmake -DLUPDATE=… -DTS=… -DSOURCES="dir;dir" -DWORK=… -P check_translations.cmake
file(COPY_FILE ${TS} ${WORK}/check.ts)
execute_process(COMMAND ${LUPDATE} ${SOURCES} -ts ${WORK}/check.ts -no-obsolete -silent RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "lupdate failed (${rc})")
endif()
file(READ ${WORK}/check.ts content)
string(REGEX MATCHALL "<translation type=\"unfinished\"" unfinished "${content}")
list(LENGTH unfinished count)
if(count GREATER 0)
  message(FATAL_ERROR "${TS}: ${count} string(s) without a translation; run lupdate (see translations/README.md) and translate them")
endif()
message(STATUS "${TS}: complete")
