// SPDX-License-Identifier: MIT
/* Checks of pages and images for the report tests (browser.h). */
#include <criterion/criterion.h>
#include <png.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "browser.h"
#include "cli.h"

#define CHROMIUM "/usr/bin/chromium"

bool png_stats(const char *path, struct png_stats *s)
{
	png_image img;
	png_bytep buf;
	uint32_t seen[64];

	memset(&img, 0, sizeof(img));
	memset(s, 0, sizeof(*s));
	img.version = PNG_IMAGE_VERSION;
	if (!png_image_begin_read_from_file(&img, path))
		return false;
	img.format = PNG_FORMAT_RGB;
	buf = malloc(PNG_IMAGE_SIZE(img));
	if (!buf || !png_image_finish_read(&img, NULL, buf, 0, NULL)) {
		free(buf);
		png_image_free(&img);
		return false;
	}
	s->w = img.width;
	s->h = img.height;
	for (size_t i = 0, n = (size_t)img.width * img.height; i < n; i++) {
		uint32_t c = (uint32_t)buf[3 * i] << 16 | (uint32_t)buf[3 * i + 1] << 8 | buf[3 * i + 2];
		size_t k;

		s->nonwhite += c != 0xffffff;
		for (k = 0; k < s->colours && seen[k] != c; k++)
			;
		if (k == s->colours && s->colours < 64)
			seen[s->colours++] = c;
	}
	s->nonwhite /= (double)img.width * img.height;
	free(buf);
	return true;
}

bool have_chromium(void)
{
	return access(CHROMIUM, X_OK) == 0;
}

/* Chromium on @url with @what (--screenshot=..., --dump-dom), @width wide. */
static struct run chromium(const char *html, const char *what, int width, int height)
{
	static int seq;
	char *url, *profile_dir, *size;
	struct run r;

	cr_assert(asprintf(&url, "file://%s", html) > 0);
	cr_assert(asprintf(&profile_dir, "--user-data-dir=%s", tpath("chromium-%d", seq++)) > 0);
	cr_assert(asprintf(&size, "--window-size=%d,%d", width, height) > 0);
	own(url);
	own(profile_dir);
	own(size);
	r = run_argv((char *const[]){ CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu",
				      "--disable-quic", "--no-first-run",
				      "--disable-background-networking",
				      "--disable-component-update", "--disable-sync",
				      "--hide-scrollbars", profile_dir, size, (char *)what, url, NULL });
	cr_assert_eq(r.status, 0, "chromium: %s", r.err);
	return r;
}

void chromium_screenshot(const char *html, const char *png, int width, int height)
{
	char *shot;

	cr_assert(asprintf(&shot, "--screenshot=%s", png) > 0);
	chromium(html, own(shot), width, height);
}

char *chromium_dom(const char *html, int width)
{
	return chromium(html, "--dump-dom", width, 900).out;
}

/*
 * Runs once the page is laid out (at the end of <body>). HTML elements
 * and each <svg> are measured; not what is inside an <svg>, which it
 * clips to its own box.
 */
static const char check_script[] =
	"<script>\n"
	"(function () {\n"
	"  var out = [], W = document.documentElement.clientWidth, n = 0, links = 0;\n"
	"  document.querySelectorAll('a[href^=\"#\"]').forEach(function (a) {\n"
	"    links++;\n"
	"    var id = a.getAttribute('href').slice(1);\n"
	"    if (!document.getElementById(id)) out.push('link #' + id + ': no element');\n"
	"  });\n"
	"  document.body.querySelectorAll('*').forEach(function (e) {\n"
	"    if (!(e instanceof HTMLElement) && e.tagName !== 'svg') return;\n"
	"    var r = e.getBoundingClientRect(), name = e.tagName + (e.id ? '#' + e.id : '');\n"
	"    n++;\n"
	"    if (r.width > 0 && (r.right > W + 1 || r.left < -1))\n"
	"      out.push('wide ' + name + ': ' + Math.round(r.right) + ' > ' + W);\n"
	"    else if (e instanceof HTMLElement && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)\n"
	"      out.push('wide ' + name + ': ' + e.scrollWidth + ' > ' + e.clientWidth);\n"
	"  });\n"
	"  if (document.documentElement.scrollWidth > W)\n"
	"    out.push('page: ' + document.documentElement.scrollWidth + ' > ' + W);\n"
	"  out.push('checked ' + n + ' elements, ' + links + ' links');\n"
	"  var pre = document.createElement('pre');\n"
	"  pre.id = 'orp-check';\n"
	"  pre.textContent = out.join('\\n');\n"
	"  document.body.appendChild(pre);\n"
	"})();\n"
	"</script>\n";

char *chromium_page_check(const char *html, int width)
{
	char *page = slurp(html), *copy = tpath("checked-%d.html", width), *end, *dom, *s, *e;
	size_t at;
	FILE *f;

	cr_assert_not_null(page, "%s", html);
	end = strstr(page, "</body>");
	cr_assert_not_null(end, "%s has no </body>", html);
	at = (size_t)(end - page);
	f = fopen(copy, "w");
	cr_assert_not_null(f);
	fwrite(page, 1, at, f);
	fputs(check_script, f);
	fputs(end, f);
	cr_assert_eq(fclose(f), 0);
	free(page);
	dom = chromium_dom(copy, width);
	s = strstr(dom, "<pre id=\"orp-check\">");
	cr_assert_not_null(s, "the check did not run: %s", dom);
	s += strlen("<pre id=\"orp-check\">");
	e = strstr(s, "</pre>");
	cr_assert_not_null(e);
	return own(strndup(s, (size_t)(e - s)));
}
