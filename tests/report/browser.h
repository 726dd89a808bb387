/* SPDX-License-Identifier: MIT */
/*
 * What the report tests check pages and images with: libpng's decoding
 * of a PNG (size, colours, how much is not white), and Debian's headless
 * Chromium, run as root with no sandbox, no network and a profile in the
 * test's directory: a screenshot of a page, its DOM once parsed and its
 * scripts run, and a check of a page's layout and links done by a script
 * added to a copy of it (the reports themselves hold none).
 */
#ifndef TESTS_REPORT_BROWSER_H
#define TESTS_REPORT_BROWSER_H

#include <stdbool.h>
#include <stddef.h>

struct png_stats {
	unsigned w, h;
	size_t colours;  /* distinct colours, counted up to 64 */
	double nonwhite; /* share of pixels that are not white */
};

/* Decode @path with libpng into @s; false when it is no PNG. */
bool png_stats(const char *path, struct png_stats *s);

/* Whether /usr/bin/chromium is there to run. */
bool have_chromium(void);
/* Screenshot @html (a path) into @png at @width x @height; asserts success. */
void chromium_screenshot(const char *html, const char *png, int width, int height);
/* The DOM of @html once loaded, at @width pixels wide (owned by the test). */
char *chromium_dom(const char *html, int width);

/*
 * The page check: a copy of @html with a script that writes, into an
 * element <pre id="orp-check">, one line per finding, then "checked N
 * elements, M links": "link #X: no element" for a link to an id no
 * element has; "wide TAG#ID: R > W" for an element whose box ends past
 * the page's width W, or whose content overflows its own box; "page:
 * S > W" when the page scrolls sideways. Loaded at @width pixels.
 * Returns the element's text (owned by the test).
 */
char *chromium_page_check(const char *html, int width);

#endif
