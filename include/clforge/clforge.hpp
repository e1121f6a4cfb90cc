// Umbrella header: everything a clforge user needs.
#pragma once
#include "clforge/blur.hpp"
#include "clforge/common.hpp"
#include "clforge/device.hpp"
#include "clforge/errors.hpp"
#include "clforge/fft.hpp"
#include "clforge/group.hpp"
#include "clforge/runtime.hpp"
#include "clforge/sgemm.hpp"
#include "clforge/transpose.hpp"
#include "clforge/tuning.hpp"
#include "clforge/version.hpp"
