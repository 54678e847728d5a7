# Writes a man page from a program's --help and --version with help2man (Debian's
# help2man package), at build time: `cmake -P man_page.cmake` with PROGRAM, NAME (the
# one-line description), INCLUDE (help2man's file of extra sections) and OUTPUT.
# The page must hold for every machine, so the figures the help computes for this one
# ("here 16") are left out. Written to a temporary file and renamed when complete.
foreach(v HELP2MAN PROGRAM NAME INCLUDE OUTPUT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "man_page.cmake: ${v} is not set")
  endif()
endforeach()
execute_process(
  COMMAND "${HELP2MAN}" --no-info --no-discard-stderr --section=1 "--name=${NAME}"
          "--include=${INCLUDE}" "${PROGRAM}"
  OUTPUT_VARIABLE page
  RESULT_VARIABLE status
  ERROR_VARIABLE errors)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "Cannot write the man page of ${PROGRAM}: help2man: ${errors}")
endif()
string(REGEX REPLACE ";[ \n]+here [0-9]+\\)" ")" page "${page}")
file(WRITE "${OUTPUT}.tmp" "${page}")
file(RENAME "${OUTPUT}.tmp" "${OUTPUT}")
