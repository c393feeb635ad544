// The x86 instruction set the including file is compiled for, as a string literal, from the
// compiler's macros: --list shows it for each subject, and the Jolt peer checks that the
// flags Jolt hands its adapter are the ones --list names.
#pragma once

#if defined(__AVX512F__)
#define COLLIDOSCOPE_ISA_BASE "AVX-512"
#elif defined(__AVX2__)
#define COLLIDOSCOPE_ISA_BASE "AVX2"
#elif defined(__AVX__)
#define COLLIDOSCOPE_ISA_BASE "AVX"
#elif defined(__SSE4_2__)
#define COLLIDOSCOPE_ISA_BASE "SSE4.2"
#else
#define COLLIDOSCOPE_ISA_BASE "x86-64 baseline"
#endif

#if defined(__FMA__)
#define COLLIDOSCOPE_COMPILED_ISA COLLIDOSCOPE_ISA_BASE "+FMA"
#else
#define COLLIDOSCOPE_COMPILED_ISA COLLIDOSCOPE_ISA_BASE
#endif
