# swift-argument-parser 1.8.2, the command-line parser of the CLI (normcache) and of the
# perf harness (normcache-bench), compiled here from its sources into two static
# libraries, ArgumentParser and ArgumentParserToolInfo, whose modules go beside the
# core's in ${PROJECT_BINARY_DIR}/swift.
#
# Why this way: the CLI and the harness then link the very NormCache library this build
# makes, with the same compiler flags (no second build of the core by SwiftPM, which
# would double the build on a small machine), and nothing of argument-parser is
# installed (its own CMakeLists.txt installs its libraries and modules into the prefix).
# On Linux argument-parser imports FoundationEssentials only, so the installed normcache
# needs no ICU.
#
# Where the sources come from, as FetchContent finds them: a checkout of 1.8.2 given with
# -DFETCHCONTENT_SOURCE_DIR_ARGUMENTPARSER=DIR (offline, anywhere), else a git clone of
# https://github.com/apple/swift-argument-parser at 1.8.2 — the same URL and version as
# Package.swift, so on a machine whose git reads github.com from a local mirror
# (url.<mirror>.insteadOf, as the project's machines do) a fresh clone builds offline.
include(FetchContent)
FetchContent_Declare(ArgumentParser
  GIT_REPOSITORY https://github.com/apple/swift-argument-parser
  GIT_TAG 1.8.2
  GIT_SHALLOW TRUE)
FetchContent_GetProperties(ArgumentParser)
if(NOT argumentparser_POPULATED)
  FetchContent_Populate(ArgumentParser)
endif()

add_library(ArgumentParserToolInfo STATIC ${argumentparser_SOURCE_DIR}/Sources/ArgumentParserToolInfo/ToolInfo.swift)
file(GLOB_RECURSE NORMCACHE_ARGUMENT_PARSER_SOURCES CONFIGURE_DEPENDS ${argumentparser_SOURCE_DIR}/Sources/ArgumentParser/*.swift)
add_library(ArgumentParser STATIC ${NORMCACHE_ARGUMENT_PARSER_SOURCES})
foreach(target ArgumentParserToolInfo ArgumentParser)
  set_target_properties(${target} PROPERTIES
    Swift_MODULE_NAME ${target}
    Swift_MODULE_DIRECTORY ${PROJECT_BINARY_DIR}/swift
    POSITION_INDEPENDENT_CODE ON)
  # -suppress-warnings: its deprecation warnings are its own to fix.
  target_compile_options(${target} PRIVATE -parse-as-library -suppress-warnings
    $<$<CONFIG:Release,RelWithDebInfo>:${NORMCACHE_SWIFT_RELEASE_FLAGS}>)
  target_include_directories(${target} INTERFACE ${PROJECT_BINARY_DIR}/swift)
endforeach()
target_link_libraries(ArgumentParser PUBLIC ArgumentParserToolInfo)
