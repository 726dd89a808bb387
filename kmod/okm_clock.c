// SPDX-License-Identifier: GPL-2.0
/*
 * The module's clock. DESIGN.md wants the CPU cycle counter converted
 * with a calibrated multiply-and-shift; the kernel has already calibrated
 * the TSC (tsc_khz), so we use its rate. We use the TSC only when the
 * kernel trusts it across CPUs -- constant rate and not marked unstable --
 * because a virtual timer's task migrates and a block request completes
 * on another CPU than it was issued on. Otherwise (other architectures,
 * unsynchronised TSCs, emulators such as QEMU TCG, where the kernel marks
 * the TSC unstable) we fall back to ktime_get_mono_fast_ns(): monotonic
 * across CPUs and NMI-safe, at the cost of the clocksource's read.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/kernel.h>
#include <linux/math64.h>
#include <linux/string.h>
#ifdef CONFIG_X86
#include <asm/cpufeature.h>
#include <asm/tsc.h>
#endif

#include "okm.h"

bool okm_clock_tsc __read_mostly;
struct okm_cyc2ns okm_clock_c2n __read_mostly = { .mult = 1, .shift = 0 };
/* CPU kHz for ktime -> estimated cycles; TSC kHz when the clock is TSC. */
static u64 okm_clock_khz __read_mostly;

static bool okm_tsc_trusted(void)
{
#ifdef CONFIG_X86
	return boot_cpu_has(X86_FEATURE_TSC) &&
	       boot_cpu_has(X86_FEATURE_CONSTANT_TSC) &&
	       tsc_khz != 0 && !check_tsc_unstable();
#else
	return false;
#endif
}

/*
 * okm_clock_init - choose the clock: @mode "auto" (TSC when trusted),
 * "tsc" (TSC whenever it exists and has a rate) or "ktime".
 * Returns 0, or -EINVAL for an unknown mode or an impossible "tsc".
 */
int okm_clock_init(const char *mode)
{
	bool want_tsc;

#ifdef CONFIG_X86
	okm_clock_khz = tsc_khz ? tsc_khz : cpu_khz;
#endif
	if (!strcmp(mode, "auto")) {
		want_tsc = okm_tsc_trusted();
	} else if (!strcmp(mode, "tsc")) {
#ifdef CONFIG_X86
		want_tsc = boot_cpu_has(X86_FEATURE_TSC) && tsc_khz != 0;
#else
		want_tsc = false;
#endif
		if (!want_tsc) {
			pr_err("clock=tsc: no usable TSC on this machine\n");
			return -EINVAL;
		}
	} else if (!strcmp(mode, "ktime")) {
		want_tsc = false;
	} else {
		pr_err("clock=%s: expected auto, tsc or ktime\n", mode);
		return -EINVAL;
	}
	if (want_tsc && okm_cyc2ns_init(&okm_clock_c2n, okm_clock_khz) == 0)
		okm_clock_tsc = true;
	else
		okm_clock_tsc = false;
	pr_info("clock %s (%llu kHz)\n", okm_clock_name(), okm_clock_khz);
	return 0;
}

const char *okm_clock_name(void)
{
	return okm_clock_tsc ? "tsc" : "ktime";
}

/*
 * Clock units to CPU cycles: exact for the TSC; for ktime an estimate from
 * the CPU's nominal rate (0 when unknown).
 */
u64 okm_clock_cycles(u64 clk)
{
	if (okm_clock_tsc)
		return clk;
	return mul_u64_u32_div(clk, (u32)okm_clock_khz, 1000000u);
}

void okm_clock_rate_str(char *buf, size_t len)
{
	u64 khz = okm_clock_tsc ? okm_clock_khz : 1000000u;

	/* units per ns = khz / 10^6 */
	snprintf(buf, len, "%llu.%06llu", khz / 1000000u, khz % 1000000u);
}
