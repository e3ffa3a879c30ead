// SPDX-License-Identifier: MIT
// The viewer without a control panel (built where Debian's libimgui-dev is not installed):
// the keyboard does everything, and the L key says that the panel is missing.
#include "viewer.h"

bool panel_create(struct GLFWwindow *window)
{
	(void)window;
	return false;
}

void panel_destroy(void) {}

bool panel_wants_mouse(const app *a)
{
	(void)a;
	return false;
}

bool panel_wants_keyboard(const app *a)
{
	(void)a;
	return false;
}

void panel_draw(app *a) { (void)a; }
