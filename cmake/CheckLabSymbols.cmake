# cmake -DOBJECTS=<object>|<object>... -DLIBRARY=<lab's shared library> -DNM=<nm> [-DOBJDUMP=<objdump>]
#       [-DREADELF=<readelf>] -DSOURCE_DIR=<dir of the lab's sources> -DSTATE=<lab's build dir>
#       [-DLINK_DIRS=<dir>|<dir>...]
#       -P CheckLabSymbols.cmake
#
# Run after a lab's shared library is linked. What the lab's code may DEFINE is an allowlist, kept
# by the link itself: the library exports only the names its header declares (a version script,
# cudalab_add_lab), so a definition of anything else, weak or strong (a libc function such as
# fputs, a CUDA runtime entry point, a GoogleTest or harness function), stays inside the library:
# the tests, GoogleTest, libc and the runtime always reach their own. This script checks that the
# library exports nothing else, and what the link cannot keep out:
#
#  - code that runs before main(): an entry of .init_array beside nvcc's registration of the
#    kernels and <iostream>'s static std::ios_base::Init (a global object with a constructor, __attribute__((constructor)), which glibc hands
#    the process's environment), a .ctors, .preinit_array or .init section of its own, or after
#    it (.fini_array);
#  - of the C library, anything but what allowed_libc lists (an allowlist: memory, strings,
#    numbers, printing to stdout and stderr, time, locks, exit);
#  - calls that reach past the tests: reading the environment (where the harness's settings and
#    each test's result record are named), opening, writing, renaming or re-dating files (a forged
#    record), starting programs, loading libraries, signal handlers, system calls of its own (the
#    raw `syscall` instruction too, found in its disassembly with OBJDUMP), or GoogleTest itself;
#  - launches the tests cannot see: the driver API (cuLaunchKernel and every other cu* call, or its
#    entry points through cudaGetDriverEntryPoint*), CUDA graphs and stream capture, and modules
#    loaded at run time (cudaLibrary*), or the Compute Sanitizer API that the kernel tracer of
#    SanitizeAll.globalrace brings into the test program (sanitizer*, InitializeInjection). The tests record a lab's launches through the runtime's
#    launch calls (<<< >>>, cudaLaunchKernel, cudaLaunchKernelExC, cudaLaunchCooperativeKernel) and
#    time and check what they record;
#  - the harness: the lab's library is linked into the test programs, which export the functions it
#    calls, so it could call the timer (cudalab::detail::set_sample_watch turns the sample watch
#    off), the settings, the launch recorder or the tests' helpers. Of cudalab it may call only the
#    device query a lab is given (cudalab::DeviceInfo, query_device, describe_device) and
#    describe_error (allowed_cudalab below);
#  - and, as an allowlist, whatever else it uses from outside itself: only names that the libraries
#    it links define (its DT_NEEDED entries: libc, libstdc++, libgcc, the CUDA runtime, found in
#    LINK_DIRS) or the C and C++ runtime libraries define (where libstdc++ is linked statically),
#    the test program's wrappers of the runtime (__wrap_*) and the host UB checks' handlers. A
#    helper or checker of the test programs, in whatever namespace, is none of these.
#
# No lab needs any of them: a kernel, its launcher and a model of the hardware compute and return.
# A violation is reported with the file and the symbol; the library is removed and the lab's
# build marker (<STATE>/lab-build-error.txt, cmake/LabBuild.cmake) written, so the lab scores
# "did not build" and no test can pass, while the build goes on with the other labs.
string(REPLACE "|" ";" OBJECTS "${OBJECTS}")
set(listing "")
foreach(object IN LISTS OBJECTS)
  execute_process(COMMAND ${NM} -C -g ${object} OUTPUT_VARIABLE one RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(WARNING "cuda-labs: ${NM} could not read ${object} (${err}); its symbols were not checked")
    return()
  endif()
  get_filename_component(name "${object}" NAME)
  string(APPEND listing "${name}:\n${one}\n")
endforeach()
# What lets the code that the tests run reach past them (see above), as libc and libstdc++ name it.
set(outside_c
  "^(secure_)?getenv$" "^(set|put|unset|clear)env$" "^_?_?environ$" "^getauxval$"
  "^(f|fd|fre)open(64)?$" "^tmpfile(64)?$" "^(__)?open(64|at|at64)?(_2)?$" "^creat(64)?$"
  "^rename(at2?)?$" "^(sym)?link(at)?$" "^unlink(at)?$" "^remove$" "^f?truncate(64)?$"
  "^(l|f)?utimes?$" "^utimensat$" "^futimens$" "^mkdir(at)?$" "^f?chdir$" "^f?chmod(at)?$"
  "^readlink(at)?$" "^realpath$" "^dup[23]?$" "^p?write(v|64)?$" "^mmap(64)?$" "^mprotect$"
  "^system$" "^popen$" "^v?fork$" "^clone3?$" "^posix_spawnp?$" "^f?exec(l|lp|le|v|vp|vpe|ve|veat)$"
  "^syscall$" "^dl(m?open|v?sym)$" "^signal$" "^sigaction$" "^(tg|pthread_)?kill$"
  "^prctl$" "^ptrace$" "^process_vm_writev$" "^setrlimit$"
  # the same under glibc's other names, and the process's arguments and environment without getenv
  "^_IO_(new_)?(f|p)open$" "^_IO_proc_open$" "^setmntent$" "^fopencookie$" "^mk(o?s|d)temp(s?64)?$"
  "^tmpnam(_r)?$" "^tempnam$" "^(open|name_to_handle|open_by_handle)_at$" "^openat2$" "^open_by_handle_at$"
  "^name_to_handle_at$" "^(shm|mq|sem)_open$" "^memfd_create$" "^socket(pair)?$" "^connect$"
  "^sendfile(64)?$" "^splice$" "^vmsplice$" "^tee$" "^copy_file_range$" "^dl_iterate_phdr$"
  "^_r_debug$" "^program_invocation(_short)?_name$" "^__progname(_full)?$" "^__libc_arg[cv]$"
  "^_dl_argv$" "^__libc_dlopen_mode$" "^__libc_dlsym$"
  # threads that outlive a call of the lab's code (no lab needs one): they could act after the test
  "^pthread_create$" "^thrd_create$")
# Launch paths the tests' launch recorder does not see (common/testing/launch_recorder.cpp).
set(outside_launch "^cu[A-Z][A-Za-z0-9_]*$" "^(__)?cuda[A-Za-z0-9]*_pt(sz|ds)$" "^cudaGetDriverEntryPoint" "^cudaGraph" "^cudaStreamBeginCapture"
                   # host code of the lab's run later by the runtime's own thread, outside any test's view
                   "^cudaLaunchHostFunc" "^cudaStreamAddCallback$"
                   "^cudaStreamEndCapture" "^cudaStreamGetCaptureInfo" "^cudaStreamUpdateCaptureDependencies"
                   "^cudaLibrary"
                   # the Compute Sanitizer API and the kernel tracer, loaded into the test program for
                   # SanitizeAll.globalrace: a lab could otherwise unpatch or re-point what it records
                   "^sanitizer[A-Z]" "^InitializeInjection$")
# What of the course's own library (common/) a lab's code may call: the device query its README uses.
set(allowed_cudalab "^cudalab::DeviceInfo::" "^cudalab::query_device\\(" "^cudalab::describe_device\\("
                    "^cudalab::describe_error\\(")
# What of the C++ library reaches files, descriptors or threads: of libstdc++'s exported families,
# the file streams and their buffers (std::basic_filebuf and the std::__basic_file<char> under it,
# which opens any path), __gnu_cxx::stdio_filebuf and stdio_sync_filebuf (a stream over a file
# descriptor or FILE*), std::filesystem, threads and the futures of std::async. A name may appear
# after its template's return type in nm's demangled form, hence the leading ( |*|&) choice.
set(outside_cxx
  "(^|[ *&])std::(__cxx11::)?basic_(i|o)?fstream<" "(^|[ *&])std::basic_filebuf<" "(^|[ *&])std::__basic_file<"
  "(^|[ *&])__gnu_cxx::stdio_(sync_)?filebuf<" "(^|[ *&])std::(__fs::|experimental::)?filesystem::"
  "(^|[ *&])std::thread::_M_start_thread" "(^|[ *&])std::jthread" "(^|[ *&])std::__future_base::")
# What of the C library (libc.so.6) the lab's own code may call: an allowlist, since glibc has some
# 2800 names and more than one way to each file, program and variable. Memory and strings, numbers,
# characters, random numbers, printing to stdout and stderr (and reading stdin), time and sleeping,
# the assert and error helpers, the locks that C++'s static locals and std::mutex use, process exit.
# A name the lab's code calls that libc defines and none of these patterns matches does not build.
# libm, libstdc++ (checked by outside_cxx), libgcc and the CUDA runtime (outside_launch) are not
# limited by this list.
set(allowed_libc
  "^(malloc|calloc|realloc|reallocarray|free|aligned_alloc|posix_memalign|memalign|valloc|pvalloc|malloc_usable_size)$"
  "^(__)?mem(cpy|move|set|cmp|chr|rchr|mem|ccpy|pcpy|rchr|frob)(_chk)?$"
  "^(__)?(str|wcs|wmem|stp|wcp)[a-z0-9_]*$"
  "^(mb|wc)[a-z0-9_]*$"
  "^(bcopy|bzero|bcmp|explicit_bzero|index|rindex|ffs|ffsl|ffsll|swab)$"
  "^(__)?(is|to)(w?(alnum|alpha|blank|cntrl|digit|graph|lower|print|punct|space|upper|xdigit)|ascii)(_l)?$"
  "^__ctype_(b|tolower|toupper)_loc$"
  "^__ctype_get_mb_cur_max$"
  "^(ato(i|l|ll|f)|abs|labs|llabs|imaxabs|div|ldiv|lldiv|imaxdiv|[efg]cvt(_r)?|q[ef]cvt(_r)?|qsort(_r)?|bsearch|l(find|search)|__isoc(99|23)_(w?cs)?strto[a-z0-9_]*)$"
  "^(s?rand(om)?|[dejlmn]rand48|srand48|seed48|lcong48|initstate|setstate)(_r)?$"
  "^(arc4random(_buf|_uniform)?|getrandom|getentropy)$"
  "^(__)?(v?f?printf|v?sn?printf|v?asprintf|puts|putchar|fputs|fputc|putc|fwrite|fflush|perror|w?printf|fwprintf|swprintf|vswprintf|putwchar|fputws|fputwc|putwc)(_chk)?(_unlocked)?$"
  "^_IO_(putc|puts)$"
  "^(__)?(__isoc(99|23)_)?v?[fs]?w?scanf(_chk)?$"
  "^(getchar|fgets|fgetc|getc|ungetc|getline|getdelim|fread|feof|ferror|clearerr|fileno)(_chk|_unlocked)?$"
  "^__(fgets|fread|getdelim)_chk$"
  "^(stdout|stderr|stdin|_IO_2_1_std(out|err|in)_)$"
  "^(setvbuf|setbuf|setbuffer|setlinebuf)$"
  "^(exit|abort|_exit|_Exit|quick_exit)$"
  "^__cxa_(atexit|finalize|thread_atexit_impl)$"
  "^(__errno_location|__xpg_strerror_r|__assert_fail|__assert_perror_fail|__assert|__stack_chk_fail|__chk_fail|__fortify_fail|__libc_single_threaded)$"
  "^(time|clock|clock_gettime|clock_getres|__clock_gettime|gettimeofday|nanosleep|clock_nanosleep|usleep|sleep|difftime|timespec_get|timespec_getres|localtime(_r)?|gmtime(_r)?|mktime|timegm|asctime(_r)?|ctime(_r)?)$"
  "^(__)?(finite|isinf|isnan|signbit|fpclassify)[fl]?$"
  "^(frexp|ldexp|modf|scalbn|scalbln|copysign)[fl]?$"
  "^pthread_(mutex|mutexattr|cond|condattr|rwlock|rwlockattr|spin|once|key_create|key_delete|getspecific|setspecific|self|equal)[a-z_]*$"
  "^(sched_yield|getpid|sysconf|get_nprocs(_conf)?|getpagesize|get_avphys_pages|get_phys_pages|isatty)$"
  # what glibc's inline wrappers and C++'s thread support call under other names
  "^__(overflow|uflow|getdelim|pthread_key_create)$"
  "^__isoc(99|23)_(str|wcs)to[a-z0-9_]*$"
  "^__mb[a-z]*_chk$" "^__[a-z]+_unlocked_chk$" "^__explicit_bzero_chk$")
# The forms of <iostream>'s static initialiser that compilers emit (see "The one initialiser a lab
# may have" below; -DDUMP_INIT_FORMS=1 prints an object's), as normalised there.
set(cudalab_iostream_init_forms
  "~endbr64 ~push %rbp~mov %rsp,%rbp~call @local~pop %rbp~ret  || ~push %rbp~mov %rsp,%rbp~lea @.bss,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~lea @.bss,%rsi~lea @__dso_handle,%rdx~call @__cxa_atexit~pop %rbp~ret "
  "~endbr64 ~push %rbp~mov %rsp,%rbp~mov $0xffff,%esi~mov $0x1,%edi~call @local~pop %rbp~ret  || ~endbr64 ~push %rbp~mov %rsp,%rbp~sub $0x10,%rsp~mov %edi,-0x4(%rbp)~mov %esi,-0x8(%rbp)~cmpl $0x1,-0x4(%rbp)~jne #20~cmpl $0xffff,-0x8(%rbp)~jne #20~lea @.bss,%rax~mov %rax,%rdi~call @_ZNSt8ios_base4InitC1Ev~lea @__dso_handle,%rax~mov %rax,%rdx~lea @.bss,%rax~mov %rax,%rsi~mov @_ZNSt8ios_base4InitD1Ev,%rax~mov %rax,%rdi~call @__cxa_atexit~nop ~leave ~ret "
  "~endbr64 ~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~lea @__dso_handle,%rdx~mov %rbx,%rsi~mov @_ZNSt8ios_base4InitD1Ev,%rdi~call @__cxa_atexit~pop %rbx~ret "
  "~endbr64 ~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~lea @__dso_handle,%rdx~mov %rbx,%rsi~call @__cxa_atexit~pop %rbx~ret "
  "~endbr64 ~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~lea @__dso_handle,%rdx~mov %rbx,%rsi~pop %rbx~jmp @__cxa_atexit"
  "~endbr64 ~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~mov %rbx,%rsi~pop %rbx~lea @__dso_handle,%rdx~jmp @__cxa_atexit"
  "~endbr64 ~sub $0x8,%rsp~mov $0xffff,%esi~mov $0x1,%edi~call @local~add $0x8,%rsp~ret  || ~cmp $0x1,%edi~je #3~ret ~cmp $0xffff,%esi~jne #2~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~lea @__dso_handle,%rdx~mov %rbx,%rsi~mov @_ZNSt8ios_base4InitD1Ev,%rdi~call @__cxa_atexit~pop %rbx~ret "
  "~push %rbp~mov %rsp,%rbp~call @local~pop %rbp~ret  || ~push %rbp~mov %rsp,%rbp~lea @.bss,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~lea @.bss,%rsi~lea @__dso_handle,%rdx~call @__cxa_atexit~pop %rbp~ret "
  "~push %rbp~mov %rsp,%rbp~mov $0xffff,%esi~mov $0x1,%edi~call @local~pop %rbp~ret  || ~cmp $0x1,%edi~je #3~ret ~cmp $0xffff,%esi~jne #2~push %rbp~mov %rsp,%rbp~push %rbx~sub $0x8,%rsp~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~lea @__dso_handle,%rdx~mov %rbx,%rsi~mov @_ZNSt8ios_base4InitD1Ev,%rdi~call @__cxa_atexit~add $0x8,%rsp~pop %rbx~pop %rbp~ret "
  "~push %rbp~mov %rsp,%rbp~mov $0xffff,%esi~mov $0x1,%edi~call @local~pop %rbp~ret  || ~push %rbp~mov %rsp,%rbp~sub $0x10,%rsp~mov %edi,-0x4(%rbp)~mov %esi,-0x8(%rbp)~cmpl $0x1,-0x4(%rbp)~jne #19~cmpl $0xffff,-0x8(%rbp)~jne #19~lea @.bss,%rax~mov %rax,%rdi~call @_ZNSt8ios_base4InitC1Ev~lea @__dso_handle,%rax~mov %rax,%rdx~lea @.bss,%rax~mov %rax,%rsi~mov @_ZNSt8ios_base4InitD1Ev,%rax~mov %rax,%rdi~call @__cxa_atexit~nop ~leave ~ret "
  "~push %rbp~mov %rsp,%rbp~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~sub $0x8,%rsp~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~add $0x8,%rsp~mov %rbx,%rsi~lea @__dso_handle,%rdx~pop %rbx~pop %rbp~jmp @__cxa_atexit"
  "~push %rbp~mov %rsp,%rbp~push %rbx~lea @.bss,%rbx~push %rax~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~mov %rbx,%rsi~pop %rcx~lea @__dso_handle,%rdx~pop %rbx~pop %rbp~jmp @__cxa_atexit"
  "~push %rbp~mov %rsp,%rbp~push %rbx~push %rax~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~lea @__dso_handle,%rdx~mov %rbx,%rsi~add $0x8,%rsp~pop %rbx~pop %rbp~jmp @__cxa_atexit"
  "~push %rbp~mov %rsp,%rbp~push %rbx~push %rax~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~lea @__dso_handle,%rdx~mov %rbx,%rsi~call @__cxa_atexit~add $0x8,%rsp~pop %rbx~pop %rbp~ret "
  "~push %rbp~mov %rsp,%rbp~push %rbx~sub $0x8,%rsp~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~lea @__dso_handle,%rdx~mov %rbx,%rsi~mov @_ZNSt8ios_base4InitD1Ev,%rdi~call @__cxa_atexit~add $0x8,%rsp~pop %rbx~pop %rbp~ret "
  "~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~lea @__dso_handle,%rdx~mov %rbx,%rsi~mov @_ZNSt8ios_base4InitD1Ev,%rdi~call @__cxa_atexit~pop %rbx~ret "
  "~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~lea @__dso_handle,%rdx~mov %rbx,%rsi~call @__cxa_atexit~pop %rbx~ret "
  "~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~lea @__dso_handle,%rdx~mov %rbx,%rsi~pop %rbx~jmp @__cxa_atexit"
  "~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~mov @_ZNSt8ios_base4InitD1Ev,%rdi~mov %rbx,%rsi~pop %rbx~lea @__dso_handle,%rdx~jmp @__cxa_atexit"
  "~sub $0x8,%rsp~mov $0xffff,%esi~mov $0x1,%edi~call @local~add $0x8,%rsp~ret  || ~cmp $0x1,%edi~je #3~ret ~cmp $0xffff,%esi~jne #2~push %rbx~lea @.bss,%rbx~mov %rbx,%rdi~call @_ZNSt8ios_base4InitC1Ev~lea @__dso_handle,%rdx~mov %rbx,%rsi~mov @_ZNSt8ios_base4InitD1Ev,%rdi~call @__cxa_atexit~pop %rbx~ret ")
string(REPLACE "\n" ";" lines "${listing}")
set(member "")
set(problems "")
set(object_uses "")
set(object_defs "")  # "<member>|<name>|<binding>" of every symbol the lab's objects define
foreach(line IN LISTS lines)
  if(line MATCHES "^(.+)\\.o:$")
    set(member "${CMAKE_MATCH_1}")  # CMake names objects <source>.o
    continue()
  endif()
  if(NOT line MATCHES "^[0-9a-fA-F ]* ([A-Za-z]) (.+)$")
    continue()
  endif()
  set(type "${CMAKE_MATCH_1}")
  set(name "${CMAKE_MATCH_2}")
  # A versioned reference (`.symver mine, getenv@GLIBC_2.2.5`, or nm's own getenv@GLIBC_2.2.5) is
  # the name before the '@': the rules below are about what is called, under any version.
  string(REGEX REPLACE "@.*$" "" name "${name}")
  if(type STREQUAL "i")
    # An IFUNC: its resolver runs while the dynamic loader relocates the library, before main()
    # and before the harness copies its settings (cudalab/settings.hpp).
    list(APPEND problems "${SOURCE_DIR}/${member}: error: runs code when the library is loaded \
(cmake/CheckLabSymbols.cmake): ${name} is an IFUNC (__attribute__((ifunc))), whose resolver runs before main()")
    continue()
  endif()
  # A use is an undefined name, weak ones included (w, v: `extern "C" char *getenv(const char *)
  # __attribute__((weak))` binds to libc's getenv all the same).
  if(type MATCHES "^[Uwv]$")
    list(APPEND object_uses "${member}|${name}")  # checked against the C library's allowlist below
  endif()
  if(type MATCHES "^[UWVuvw]$")
    if(type MATCHES "^[Uwv]$" AND name MATCHES "^testing::")
      list(APPEND problems "${SOURCE_DIR}/${member}: error: uses GoogleTest (cmake/CheckLabSymbols.cmake): ${name}")
    else()
      if(type MATCHES "^[Uwv]$")
        if(name MATCHES "^cudalab::")
          set(allowed FALSE)
          foreach(pattern IN LISTS allowed_cudalab)
            if(name MATCHES "${pattern}")
              set(allowed TRUE)
            endif()
          endforeach()
          if(NOT allowed)
            list(APPEND problems "${SOURCE_DIR}/${member}: error: calls ${name} (cmake/CheckLabSymbols.cmake): the lab's \
code may call of cudalab only the device query (cudalab::DeviceInfo, query_device, describe_device) and describe_error, \
not the harness (the timer, the settings, the launch recorder, the tests' helpers)")
          endif()
        endif()
        foreach(pattern IN LISTS outside_launch)
          if(name MATCHES "${pattern}")
            list(APPEND problems "${SOURCE_DIR}/${member}: error: calls ${name} (cmake/CheckLabSymbols.cmake): the lab's \
code launches kernels with <<< >>> or the runtime's cudaLaunchKernel/cudaLaunchKernelEx/cudaLaunchCooperativeKernel \
only, which the tests record and check; no driver API, driver entry points, CUDA graphs or host functions run by the \
runtime (cudaLaunchHostFunc, cudaStreamAddCallback)")
          endif()
        endforeach()
        foreach(pattern IN LISTS outside_c)
          if(name MATCHES "${pattern}")
            list(APPEND problems "${SOURCE_DIR}/${member}: error: calls ${name} (cmake/CheckLabSymbols.cmake): the lab's \
code may not read the environment, touch files, start programs or make system calls")
          endif()
        endforeach()
      endif()
      foreach(pattern IN LISTS outside_cxx)
        if(name MATCHES "${pattern}")
          list(APPEND problems "${SOURCE_DIR}/${member}: error: uses ${name} (cmake/CheckLabSymbols.cmake): the lab's \
code may not open or change files")
        endif()
      endforeach()
    endif()
  endif()
endforeach()
# System calls made without libc: the instruction itself in the host code's disassembly. And code
# hidden from that disassembly: a direct jump or call that lands inside another instruction (the
# bytes of a syscall inside a movabs's immediate, say), which no compiler emits.
if(OBJDUMP)
  execute_process(COMMAND ${OBJDUMP} -dr --no-show-raw-insn ${OBJECTS} OUTPUT_VARIABLE code RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0)
    string(REPLACE "\n" ";" code_lines "${code}")
    list(APPEND code_lines "Disassembly of section (end):")  # flushes the last section
    set(last_branch "")  # a branch just read: the relocation after it, if any, names its real target
    set(member "")
    set(section "")
    set(starts ";")  # the instructions of the current object and section, as ";<address>;"
    set(branches "")  # its direct jumps and calls within the section, as "<address>><target>"
    foreach(line IN LISTS code_lines)
      if(line MATCHES "^In archive ")
        continue()
      elseif(line MATCHES "^[ \t]+[0-9a-f]+: R_")
        if(last_branch)  # a jump or call to another symbol or section: the assembler left it to the linker
          list(REMOVE_ITEM branches "${last_branch}")
        endif()
        set(last_branch "")
        continue()
      elseif(line MATCHES "^(.+)\\.o: +file format" OR line MATCHES "^Disassembly of section ([^:]+):")
        foreach(b IN LISTS branches)
          string(REGEX REPLACE "^.*>" "" target "${b}")
          string(FIND "${starts}" ";${target};" at)
          if(at EQUAL -1)
            string(REGEX REPLACE ">.*$" "" from "${b}")
            list(APPEND problems "${SOURCE_DIR}/${member}: error: jumps into the middle of an instruction \
(cmake/CheckLabSymbols.cmake): from ${section}+0x${from} to ${section}+0x${target}, code hidden from the disassembly \
(inline assembly with raw bytes: no lab needs it)")
          endif()
        endforeach()
        set(starts ";")
        set(branches "")
        if(line MATCHES "^(.+)\\.o: +file format")
          get_filename_component(member "${CMAKE_MATCH_1}" NAME)
        elseif(line MATCHES "^Disassembly of section ([^:]+):")
          set(section "${CMAKE_MATCH_1}")
        endif()
      elseif(line MATCHES "^ +([0-9a-f]+):[ \t]+(syscall|sysenter|int +.0x80)")
        list(APPEND problems "${SOURCE_DIR}/${member}: error: makes a system call of its own (cmake/CheckLabSymbols.cmake): \
${CMAKE_MATCH_2} in its host code")
      elseif(line MATCHES "^ +([0-9a-f]+):[ \t]+([a-z][a-z0-9]*)[ \t]*([^ \t]*)")
        set(at "${CMAKE_MATCH_1}")
        set(mnemonic "${CMAKE_MATCH_2}")
        set(operand "${CMAKE_MATCH_3}")
        string(APPEND starts "${at};")
        set(last_branch "")
        if(mnemonic MATCHES "^(j[a-z]*|call[a-z]*|loop[a-z]*)$" AND operand MATCHES "^[0-9a-f]+$")
          set(last_branch "${at}>${operand}")
          list(APPEND branches "${last_branch}")
        endif()
      endif()
    endforeach()
  endif()
endif()
# Code that runs before main(): each object's .init_array holds nvcc's registration alone.
if(READELF)
  foreach(object IN LISTS OBJECTS)
    get_filename_component(member "${object}" NAME)
    string(REGEX REPLACE "[.]o$" "" member "${member}")
    execute_process(COMMAND ${READELF} -SW ${object} OUTPUT_VARIABLE sections RESULT_VARIABLE rc ERROR_QUIET)
    execute_process(COMMAND ${READELF} -sW ${object} OUTPUT_VARIABLE symbols ERROR_QUIET)
    execute_process(COMMAND ${READELF} -rW ${object} OUTPUT_VARIABLE relocations ERROR_QUIET)
    if(NOT rc EQUAL 0)
      continue()
    endif()
    # IFUNCs, local ones included (nm -g lists only the global ones): resolvers run at load time.
    string(REGEX MATCHALL "[^\n]* IFUNC [^\n]*" ifuncs "${symbols}")
    foreach(entry IN LISTS ifuncs)
      string(REGEX REPLACE ".* " "" fn "${entry}")
      list(APPEND problems "${SOURCE_DIR}/${member}: error: runs code when the library is loaded \
(cmake/CheckLabSymbols.cmake): ${fn} is an IFUNC (__attribute__((ifunc))), whose resolver runs before main()")
    endforeach()
    # What the lab's code defines under a name the compiler's own code calls while the library
    # loads or exits (nvcc's registration: __cudaRegister*; <iostream>'s initialiser:
    # std::ios_base::Init, __cxa_atexit): such a call would bind to the lab's definition, local or
    # global. Names the libraries it links define are checked below (object_defs).
    string(REPLACE "\n" ";" symbol_lines_d "${symbols}")
    foreach(line IN LISTS symbol_lines_d)
      if(NOT line MATCHES "^ *[0-9]+: [0-9a-f]+ +[0-9]+ +[A-Z_]+ +(LOCAL|GLOBAL|WEAK|UNIQUE) +[A-Z]+ +([0-9]+|ABS|COM) +([^ ]+)")
        continue()
      endif()
      set(bind "${CMAKE_MATCH_1}")
      string(REGEX REPLACE "@.*$" "" defined "${CMAKE_MATCH_3}")
      if(defined MATCHES "^(__cxa_[a-z_]+|__dso_handle|atexit|_ZNSt8ios_base4Init[CD][12]Ev|__cuda(Register|Unregister|PushCall|PopCall|Launch|GetKernel|InitModule)[A-Za-z]*)$")
        list(APPEND problems "${SOURCE_DIR}/${member}: error: defines ${defined} (cmake/CheckLabSymbols.cmake), a function \
that code the compiler generates calls while the library loads or exits: the lab's code may not define it")
      else()
        list(APPEND object_defs "${member}|${defined}|${bind}")
      endif()
    endforeach()
    string(REPLACE "\n" ";" section_lines "${sections}")
    set(names "")  # section index -> name, as "<index>=<name>"
    foreach(line IN LISTS section_lines)
      if(line MATCHES "^ *\\[ *([0-9]+)\\] ([^ ]+) ")
        list(APPEND names "${CMAKE_MATCH_1}=${CMAKE_MATCH_2}")
        if(CMAKE_MATCH_2 MATCHES "^[.](ctors|dtors|preinit_array|init)([.]|$)")
          list(APPEND problems "${SOURCE_DIR}/${member}: error: runs code before main() (cmake/CheckLabSymbols.cmake): \
a ${CMAKE_MATCH_2} section")
        endif()
      endif()
    endforeach()
    # The functions, as "<section name>+<offset>=<symbol>" (offsets in hexadecimal, no leading zeros).
    string(REPLACE "\n" ";" symbol_lines "${symbols}")
    set(functions "")
    foreach(line IN LISTS symbol_lines)
      if(line MATCHES "^ *[0-9]+: ([0-9a-f]+) +[0-9]+ (FUNC|NOTYPE|SECTION) +[A-Z]+ +[A-Z]+ +([0-9]+) *(.*)$")
        set(offset "${CMAKE_MATCH_1}")
        set(index "${CMAKE_MATCH_3}")
        set(symbol "${CMAKE_MATCH_4}")
        string(REGEX REPLACE "^0+([0-9a-f])" "\\1" offset "${offset}")
        foreach(entry IN LISTS names)
          if(entry MATCHES "^${index}=(.*)$")
            list(APPEND functions "${CMAKE_MATCH_1}+${offset}=${symbol}")
          endif()
        endforeach()
      endif()
    endforeach()
    # The entries of .rela.init_array (and .fini_array): "<offset> <info> <type> <value> <symbol or
    # section> + <addend>". nvcc's registration is one entry of .init_array in every object it
    # compiles; any other entry is the lab's own. Each is named as well as the tables allow.
    set(allowed 0)
    if(symbols MATCHES "__sti____cudaRegisterAll")
      set(allowed 1)
    endif()
    string(REPLACE "\n" ";" relocation_lines "${relocations}")
    set(in_init FALSE)
    set(entries "")
    set(others "")
    foreach(line IN LISTS relocation_lines)
      if(line MATCHES "^Relocation section '([^']*)'")
        set(in_init FALSE)
        if(CMAKE_MATCH_1 MATCHES "^[.]rela?[.](init_array|fini_array)")
          set(in_init TRUE)
          set(array "${CMAKE_MATCH_1}")
        endif()
        continue()
      endif()
      if(NOT in_init OR NOT line MATCHES "^[0-9a-f]+ +[0-9a-f]+ +[A-Z0-9_]+ +[0-9a-f]+ +([^ ]+) *([+-] *[0-9a-f]+)?")
        continue()
      endif()
      set(target "${CMAKE_MATCH_1}")
      string(REGEX REPLACE "[+ ]" "" addend "${CMAKE_MATCH_2}")
      if(addend STREQUAL "")
        set(addend 0)
      endif()
      string(REGEX REPLACE "^0+([0-9a-f])" "\\1" addend "${addend}")
      set(function "${target}+0x${addend}")
      foreach(entry IN LISTS functions)
        if(entry MATCHES "^(.*)[+]([0-9a-f]+)=(.+)$" AND CMAKE_MATCH_1 STREQUAL target AND CMAKE_MATCH_2 STREQUAL addend)
          set(function "${CMAKE_MATCH_3}")
        endif()
      endforeach()
      if(NOT array MATCHES "fini_array")
        list(APPEND entries "${function}")
        if(NOT function MATCHES "__sti____cudaRegisterAll")
          list(APPEND others "${function}")
        endif()
      else()
        list(APPEND problems "${SOURCE_DIR}/${member}: error: runs code after main() (cmake/CheckLabSymbols.cmake): \
__attribute__((destructor)) (${function})")
      endif()
    endforeach()
    # The one initialiser a lab may have: <iostream>'s (GCC before 13 gives every file that includes
    # it a static std::ios_base::Init object). An entry is that initialiser when its code, with the
    # one local function it may call (__static_initialization_and_destruction_0 or
    # __cxx_global_var_init, without optimisation), is instruction for instruction one of the
    # forms compilers emit for it (cudalab_iostream_init_forms below: GCC and Clang, optimised or
    # not, with or without -fcf-protection, frame pointers and the host UB checks): relocations
    # named, local branches as instruction indices. Anything else, a global object of the lab's own
    # in the same file whose initialiser the compiler puts into the same function included, is
    # refused as code that runs before main().
    set(iostream_only "")
    set(not_iostream "")  # "<entry>: <what else it does>", for the message
    if(others AND OBJDUMP)
      execute_process(COMMAND ${OBJDUMP} -dr --no-show-raw-insn ${object} OUTPUT_VARIABLE listing_o ERROR_QUIET)
      string(REPLACE ";" "," listing_o "${listing_o}")
      string(REPLACE "[" "(" listing_o "${listing_o}")
      string(REPLACE "]" ")" listing_o "${listing_o}")
      string(REPLACE "\n" ";" listing_lines "${listing_o}")
      # Instructions as "<function>|<address>|<mnemonic>|<operands>|<relocation target>"; a line
      # inside a function that is neither an instruction nor a relocation spoils that function.
      set(insns "")
      set(current "")
      set(pending "")
      set(spoiled "")
      foreach(line IN LISTS listing_lines)
        if(line MATCHES "^([0-9a-f]+) <([^>]+)>:$")
          if(pending)
            list(APPEND insns "${pending}|")
            set(pending "")
          endif()
          set(current "${CMAKE_MATCH_2}")
        elseif(current AND line MATCHES "^[ \t]+[0-9a-f]+: R_X86_64_[A-Z0-9_]+[ \t]+([^ \t+-]+)")
          if(pending)
            list(APPEND insns "${pending}|${CMAKE_MATCH_1}")
            set(pending "")
          endif()
        elseif(current AND line MATCHES "^ +([0-9a-f]+):\t([a-z0-9]+) *(.*)$")
          if(pending)
            list(APPEND insns "${pending}|")
          endif()
          set(pending "${current}|${CMAKE_MATCH_1}|${CMAKE_MATCH_2}")
          string(REGEX REPLACE "[ \t]*#.*$" "" ops "${CMAKE_MATCH_3}")  # objdump's comment
          string(STRIP "${ops}" ops)
          string(REPLACE "|" "/" ops "${ops}")
          set(pending "${pending}|${ops}")
        elseif(current AND NOT line MATCHES "^[ \t]*$" AND NOT line MATCHES "^Disassembly of section")
          list(APPEND spoiled "${current}")
        endif()
      endforeach()
      if(pending)
        list(APPEND insns "${pending}|")
      endif()
      # One function as a normalised form: its instructions joined by "~", each "<mnemonic>
      # <operands>" with a relocated operand written @<target>, a local call @local, a local branch
      # #<index of the instruction it lands on> (#? when none), old objdumps' q suffixes dropped,
      # and the padding after the last instruction left out.
      function(_cudalab_init_form fn out_form out_callee)
        set(addrs "")
        foreach(entry IN LISTS insns)
          if(entry MATCHES "^([^|]*)[|]([0-9a-f]+)[|]" AND CMAKE_MATCH_1 STREQUAL fn)
            list(APPEND addrs "${CMAKE_MATCH_2}")
          endif()
        endforeach()
        set(form "")
        set(callee "")
        foreach(entry IN LISTS insns)
          if(NOT entry MATCHES "^([^|]*)[|]([0-9a-f]+)[|]([a-z0-9]+)[|]([^|]*)[|](.*)$" OR NOT CMAKE_MATCH_1 STREQUAL fn)
            continue()
          endif()
          set(mnem "${CMAKE_MATCH_3}")
          set(ops "${CMAKE_MATCH_4}")
          set(target "${CMAKE_MATCH_5}")
          if(mnem MATCHES "^(call|jmp|ret|leave|push|pop)q$")
            string(REGEX REPLACE "q$" "" mnem "${mnem}")
          endif()
          if(target)
            if(ops MATCHES "^[0-9a-f]+ <[^>]*>$")
              set(ops "@${target}")
            else()
              string(REGEX REPLACE "(-?0x[0-9a-f]+)?\\(%rip\\)" "@${target}" ops "${ops}")
            endif()
          elseif(mnem MATCHES "^(call|jmp|j[a-z]+)$" AND ops MATCHES "^([0-9a-f]+) <([^>+]+)>$" AND NOT CMAKE_MATCH_2 STREQUAL fn)
            set(ops "@local")
            set(callee "${CMAKE_MATCH_2}")
          elseif(mnem MATCHES "^(call|jmp|j[a-z]+)$" AND ops MATCHES "^([0-9a-f]+) <")
            list(FIND addrs "${CMAKE_MATCH_1}" at)
            if(at EQUAL -1)
              set(ops "#?")
            else()
              set(ops "#${at}")
            endif()
          endif()
          string(APPEND form "~${mnem} ${ops}")
        endforeach()
        # The padding after the function (nop, and the cs/data16/xchg forms of it) is not code.
        string(REGEX REPLACE "(~(nop[lw]?|xchg|cs|data16)[^~]*)+$" "" form "${form}")
        set(${out_form} "${form}" PARENT_SCOPE)
        set(${out_callee} "${callee}" PARENT_SCOPE)
      endfunction()
      foreach(function IN LISTS others)
        _cudalab_init_form("${function}" form callee)
        set(whole "${form}")
        if(callee)
          _cudalab_init_form("${callee}" callee_form unused)
          set(whole "${form} || ${callee_form}")
        endif()
        list(FIND spoiled "${function}" s1)
        list(FIND spoiled "${callee}" s2)
        set(known FALSE)
        if(s1 EQUAL -1 AND s2 EQUAL -1)
          foreach(known_form IN LISTS cudalab_iostream_init_forms)
            if(whole STREQUAL known_form)
              set(known TRUE)
              break()
            endif()
          endforeach()
        endif()
        if(DUMP_INIT_FORMS)
          message("init form: ${whole}")
        endif()
        if(known)
          list(APPEND iostream_only "${function}")
        elseif(whole MATCHES "_ZNSt8ios_base4InitC1Ev")
          list(APPEND not_iostream "${function}: not the code compilers emit for <iostream> alone")
        endif()
      endforeach()
    endif()
    list(LENGTH iostream_only n_iostream)
    math(EXPR allowed "${allowed} + ${n_iostream}")
    list(REMOVE_ITEM others ${iostream_only})
    list(LENGTH entries n)
    if(n GREATER allowed)
      if(NOT others)
        set(others "${entries}")
      endif()
      list(JOIN others ", " others)
      set(beside "")
      if(not_iostream)
        list(JOIN not_iostream ", " beside)
        set(beside ": more than <iostream>'s initialiser: ${beside}")
      endif()
      list(APPEND problems "${SOURCE_DIR}/${member}: error: runs code before main() (cmake/CheckLabSymbols.cmake): \
a global object with a constructor, or __attribute__((constructor)) (${others}${beside})")
    endif()
  endforeach()
endif()
# The allowlist, as the link kept it: the library exports the names of its header alone.
if(LIBRARY AND EXPORTS)
  execute_process(COMMAND ${NM} -D --defined-only ${LIBRARY} OUTPUT_VARIABLE exported RESULT_VARIABLE rc ERROR_QUIET)
  if(rc EQUAL 0)
    string(REPLACE "|" ";" EXPORTS "${EXPORTS}")
    string(REPLACE "\n" ";" export_lines "${exported}")
    foreach(line IN LISTS export_lines)
      if(NOT line MATCHES "^[0-9a-fA-F ]* [A-Za-z] (.+)$")
        continue()
      endif()
      set(name "${CMAKE_MATCH_1}")
      string(REGEX REPLACE "@.*" "" name "${name}")
      set(allowed FALSE)
      foreach(pattern IN LISTS EXPORTS)
        string(REPLACE "*" ".*" regex "${pattern}")  # patterns are names and * alone
        if(name MATCHES "^${regex}$")
          set(allowed TRUE)
          break()
        endif()
      endforeach()
      if(NOT allowed)
        list(APPEND problems "${LIBRARY}: error: exports ${name} (cmake/CheckLabSymbols.cmake), which the lab's header does not declare")
      endif()
    endforeach()
  endif()
endif()
# What the library uses from outside itself, as an allowlist: a name that one of the libraries it
# links (its DT_NEEDED: libc, libstdc++, libgcc, the CUDA runtime) defines, the test program's
# wrappers of the runtime's launch and wait calls (__wrap_*, cudalab_add_lab) or the host UB checks'
# handlers (__ubsan_handle_*). Anything else would bind to the test program's own functions and
# variables (the tests' helpers and checkers, whatever namespace they are in).
if(LIBRARY AND READELF AND LINK_DIRS)
  string(REPLACE "|" ";" LINK_DIRS "${LINK_DIRS}")
  execute_process(COMMAND ${READELF} -dW ${LIBRARY} OUTPUT_VARIABLE dynamic RESULT_VARIABLE rc_d ERROR_QUIET)
  execute_process(COMMAND ${NM} -D --undefined-only ${LIBRARY} OUTPUT_VARIABLE undefined RESULT_VARIABLE rc_u ERROR_QUIET)
  set(available ";")
  set(libc_defs "")
  set(unchecked "")
  if(rc_d EQUAL 0 AND rc_u EQUAL 0)
    string(REGEX MATCHALL "\\(NEEDED\\)[^[]*\\[[^]]+\\]" needed_lines "${dynamic}")
    foreach(entry IN LISTS needed_lines)
      string(REGEX REPLACE ".*\\[([^]]+)\\]$" "\\1" soname "${entry}")
      set(found "")
      foreach(dir IN LISTS LINK_DIRS)
        if(EXISTS "${dir}/${soname}")
          set(found "${dir}/${soname}")
          break()
        endif()
      endforeach()
      if(NOT found)
        set(unchecked "${soname}")
        break()
      endif()
      execute_process(COMMAND ${NM} -D --defined-only ${found} OUTPUT_VARIABLE defs RESULT_VARIABLE rc ERROR_QUIET)
      if(NOT rc EQUAL 0)
        set(unchecked "${soname}")
        break()
      endif()
      string(REGEX REPLACE "[0-9a-fA-F]* [A-Za-z] ([^@\n]+)[^\n]*\n" "\\1;" defs "${defs}")
      string(APPEND available "${defs}")
      if(soname MATCHES "^libc[.]so")
        set(libc_defs ";${defs}")
      endif()
    endforeach()
    # A toolchain that links the C++ runtime into the library statically (g++ -static-libstdc++,
    # or a compiler set up to) leaves libstdc++ out of DT_NEEDED, and the copy's weak references
    # (__cxa_pure_virtual; libitm's _ITM_* through libstdc++'s transactional clones) undefined:
    # what the C and C++ runtime libraries define is available too, where they are found.
    if(NOT unchecked)
      foreach(soname IN ITEMS libstdc++.so.6 libgcc_s.so.1 libm.so.6 libc.so.6 libitm.so.1)
        foreach(dir IN LISTS LINK_DIRS)
          if(EXISTS "${dir}/${soname}")
            execute_process(COMMAND ${NM} -D --defined-only "${dir}/${soname}" OUTPUT_VARIABLE defs RESULT_VARIABLE rc
                            ERROR_QUIET)
            if(rc EQUAL 0)
              string(REGEX REPLACE "[0-9a-fA-F]* [A-Za-z] ([^@\n]+)[^\n]*\n" "\\1;" defs "${defs}")
              string(APPEND available "${defs}")
            endif()
            break()
          endif()
        endforeach()
      endforeach()
    endif()
    if(unchecked)
      message(WARNING "cuda-labs: ${LIBRARY}: ${unchecked} was not found in ${LINK_DIRS}: what the lab's code uses "
                      "from outside itself was not checked (cmake/CheckLabSymbols.cmake)")
    else()
      string(REGEX MATCHALL "[ \t][Uwv] [^@\n]+" uses "${undefined}")
      foreach(use IN LISTS uses)
        string(REGEX REPLACE "^[ \t][Uwv] " "" name "${use}")
        # The weak references that the C runtime's start files put into every shared library.
        if(name MATCHES "^(__gmon_start__|_ITM_deregisterTMCloneTable|_ITM_registerTMCloneTable)$")
          continue()
        endif()
        # The course's own library is linked into the lab's (a call the object check above allows
        # is defined inside it): undefined only where a lab's objects are checked alone.
        if(name MATCHES "^(__wrap_|__ubsan_handle_|_ZN7cudalab|_ZNK7cudalab)")
          continue()
        endif()
        string(FIND "${available}" ";${name};" at)
        if(at EQUAL -1)
          list(APPEND problems "${LIBRARY}: error: uses ${name} (cmake/CheckLabSymbols.cmake), which neither the C and \
C++ libraries nor the CUDA runtime define: the lab's code may use no function or variable of the test programs (the \
tests' helpers and checks)")
        endif()
      endforeach()
      # Nothing the libraries it links define may the lab's code define again (an extern "C"
      # fputs, a strong copy of a libstdc++ function): within the library it would take the place
      # of theirs for the code the compiler generates. Weak definitions of C++ names are the
      # template and inline instances every object carries, and are left alone.
      foreach(def IN LISTS object_defs)
        if(NOT def MATCHES "^([^|]*)[|]([^|]*)[|](.*)$")
          continue()
        endif()
        set(member "${CMAKE_MATCH_1}")
        set(name "${CMAKE_MATCH_2}")
        set(bind "${CMAKE_MATCH_3}")
        if(name MATCHES "^_Z" AND bind STREQUAL "WEAK")
          continue()
        endif()
        string(FIND "${available}" ";${name};" at)
        if(NOT at EQUAL -1)
          list(APPEND problems "${SOURCE_DIR}/${member}: error: defines ${name} (cmake/CheckLabSymbols.cmake), which the \
C or C++ library or the CUDA runtime defines: the lab's code may not define such a name again")
        endif()
      endforeach()
      # The lab's own objects, against the C library's allowlist (allowed_libc above).
      foreach(use IN LISTS object_uses)
        string(REGEX REPLACE "^([^|]*)[|](.*)$" "\\1" member "${use}")
        string(REGEX REPLACE "^([^|]*)[|](.*)$" "\\2" name "${use}")
        string(FIND "${libc_defs}" ";${name};" at)
        if(at EQUAL -1)
          continue()
        endif()
        set(allowed FALSE)
        foreach(pattern IN LISTS allowed_libc)
          if(name MATCHES "${pattern}")
            set(allowed TRUE)
            break()
          endif()
        endforeach()
        if(NOT allowed)
          list(APPEND problems "${SOURCE_DIR}/${member}: error: calls ${name} (cmake/CheckLabSymbols.cmake), a function of \
the C library that is not on the list a lab may use (memory, strings, numbers, printing to stdout and stderr, time, \
locks; allowed_libc): the lab's code may not read the environment, touch files, start programs or threads, or make \
system calls")
        endif()
      endforeach()
    endif()
  endif()
endif()
if(problems)
  list(REMOVE_DUPLICATES problems)
  foreach(p IN LISTS problems)
    execute_process(COMMAND ${CMAKE_COMMAND} -E echo "${p}")
  endforeach()
  list(GET problems 0 first)
  if(STATE)
    file(WRITE "${STATE}/lab-build-error.txt" "${first}\n")
  endif()
  if(LIBRARY)
    file(REMOVE "${LIBRARY}")  # no test links with it; the next build checks again
  endif()
  execute_process(COMMAND ${CMAKE_COMMAND} -E echo
    "cuda-labs: the lab's code defines or uses what it must not (listed above): it scores 0; the other labs build and grade.")
endif()
