// The OpenCL C++ bindings (CLHPP) as clforge's headers include them. clforge is built for OpenCL
// 1.2 (CL_HPP_TARGET_OPENCL_VERSION and CL_HPP_MINIMUM_OPENCL_VERSION 120); its headers set
// these versions only where the program has not set them, so a program that defines nothing
// gets the bindings clforge was built with, without the CLHPP "not defined" messages.
//
// A program may set its own versions (compiler flags, or defines before the first include of
// clforge or CLHPP), e.g. CL_HPP_TARGET_OPENCL_VERSION=300 for OpenCL 3.0 calls of its own: the
// wrappers clforge's API takes and returns (cl::Buffer, cl::Event, cl::CommandQueue,
// cl::Context, cl::Device) have the same layout whatever the versions. Whatever includes
// <CL/opencl.hpp> first fixes the versions for the translation unit: define them first, or
// include clforge first.
//
// The minimum version decides whether the bindings may call OpenCL 2.0 functions without asking
// the platform, in the program and, as inline functions are shared at link time, possibly in
// clforge. Where it is not set it stays below 2.0, so OpenCL 1.2 platforms keep working:
//   target below 1.2: the target;  target 1.2: 1.2;
//   target 2.0 or newer: 1.1, where the command-queue constructors ask the platform whether to
//   call clCreateCommandQueue or clCreateCommandQueueWithProperties. (1.2 would do the same, but
//   CLHPP releases up to 2023.02, Debian 12's, then lack detail::getContextPlatformVersion: a
//   program that sets target >= 200 and minimum 120 itself does not compile with them.)
#pragma once

#ifndef CL_HPP_TARGET_OPENCL_VERSION
#define CL_HPP_TARGET_OPENCL_VERSION 120
#endif
#ifndef CL_HPP_MINIMUM_OPENCL_VERSION
#if CL_HPP_TARGET_OPENCL_VERSION < 120
#define CL_HPP_MINIMUM_OPENCL_VERSION CL_HPP_TARGET_OPENCL_VERSION
#elif CL_HPP_TARGET_OPENCL_VERSION < 200
#define CL_HPP_MINIMUM_OPENCL_VERSION 120
#else
#define CL_HPP_MINIMUM_OPENCL_VERSION 110
#endif
#endif

#include <CL/opencl.hpp>
