// SPDX-License-Identifier: MIT
// The key table: keyboard handling, the overlay's parameter list and --help all read it.
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "viewer.h"

#define MAX_BINDINGS 40

typedef struct key_table {
	key_binding bindings[MAX_BINDINGS];
	int count;
} key_table;

static void add(key_table *t, const char *key, key_action action, const char *what, const demo_param *param)
{
	if (t->count < MAX_BINDINGS)
		t->bindings[t->count++] = (key_binding){key, action, what, param};
}

// Built on first use from the parameter table; afterwards read-only.
static const key_table *table(void)
{
	static key_table t;
	static int built;
	if (!built) {
		static char letters[MAX_BINDINGS][2];
		for (int i = 0; i < demo_param_count(); ++i) {
			const demo_param *p = demo_param_at(i);
			if (!p->key)
				continue;
			letters[t.count][0] = p->key;
			add(&t, letters[t.count], KEY_PARAM, p->label, p);
		}
		add(&t, "space", KEY_PAUSE, "pause / resume", NULL);
		add(&t, ".", KEY_STEP, "one step while paused", NULL);
		add(&t, "R", KEY_RESET, "reset the scene (keeps the tuning)", NULL);
		add(&t, "1-9", KEY_SCENE, "choose a scene", NULL);
		add(&t, "]", KEY_NEXT_SCENE, "next scene (every scene, in the order of --help)", NULL);
		add(&t, "[", KEY_PREVIOUS_SCENE, "previous scene", NULL);
		add(&t, "X", KEY_WIREFRAME, "wireframe", NULL);
		add(&t, "N", KEY_NORMALS, "vertex normals (pinned vertices are always marked)", NULL);
		add(&t, "V", KEY_CONTACTS, "contacts touching: points and normals, by kind", NULL);
		add(&t, "E", KEY_CANDIDATES, "candidate pairs of the contact search", NULL);
		add(&t, "Z", KEY_GUARD_STOPS, "flash where the guard (CCD) stopped a crossing", NULL);
		add(&t, "H", KEY_HELP, "help overlay", NULL);
		add(&t, "tab", KEY_PANEL, "hide / show the panel of figures and parameters", NULL);
		add(&t, "P", KEY_SCREENSHOT, "save a PNG screenshot", NULL);
		add(&t, "M", KEY_MATERIAL, "next material preset (silk, cotton, denim, leather, rubber)", NULL);
		add(&t, "L", KEY_CONTROLS, "control panel: sliders, scene list, views, figures (mouse)", NULL);
		add(&t, "C", KEY_FRAME, "frame the cloth (the camera looks at all of it)", NULL);
		add(&t, "O", KEY_SAVE_TUNING, "save the tuning file and print it as C code", NULL);
		add(&t, "escape", KEY_QUIT, "quit", NULL);
		built = 1;
	}
	return &t;
}

int key_binding_count(void) { return table()->count; }

const key_binding *key_binding_at(int index)
{
	return index >= 0 && index < table()->count ? &table()->bindings[index] : NULL;
}

static bool name_matches(const key_binding *b, const char *name)
{
	if (b->action == KEY_SCENE)
		return name[0] >= '1' && name[0] <= '9' && name[1] == '\0';
	return strcasecmp(b->key, name) == 0;
}

static void format_value(const demo_param *p, float v, char *out, size_t cap)
{
	if (p->is_integer)
		snprintf(out, cap, "%d", (int)lroundf(v));
	else if (p->step_kind == DEMO_STEP_MULTIPLY)
		snprintf(out, cap, "%.3g", (double)v);
	else
		snprintf(out, cap, "%.3f", (double)v);
}

static void press_param(app *a, const demo_param *p, bool shift)
{
	// A letter raises the parameter (for compliances: the stiffness), Shift lowers it.
	bool up = p->key_lowers ? shift : !shift;
	pbd_result r = demo_param_nudge(p, a->world, &a->state, up);
	char value[32];
	format_value(p, p->get(a->world, &a->state), value, sizeof value);
	if (r == PBD_OK)
		app_set_status(a, "%s = %s %s", p->label, value, p->unit);
	else
		app_set_status(a, "%s: %s", p->label, pbd_world_last_error(a->world));
}

// The scene's place in the scene table; -1 for your own cloth (--cloth), which is not in it.
static int scene_index(const app *a)
{
	for (int i = 0; i < demo_scene_count(); ++i)
		if (demo_scene_at(i) == a->scene)
			return i;
	return -1;
}

static void switch_scene(app *a, int index, const char *key)
{
	const demo_scene *s = demo_scene_at(index);
	if (s && app_load_scene(a, s, false))
		app_set_status(a, "scene %s", s->name);
	else if (!s)
		app_set_status(a, "no scene %s (there are %d)", key, demo_scene_count());
}

bool keys_press(app *a, const char *name, bool shift)
{
	for (int i = 0; i < key_binding_count(); ++i) {
		const key_binding *b = key_binding_at(i);
		if (!name_matches(b, name))
			continue;
		switch (b->action) {
		case KEY_PARAM:
			press_param(a, b->param, shift);
			break;
		case KEY_PAUSE:
			a->paused = !a->paused;
			app_set_status(a, a->paused ? "paused" : "running");
			break;
		case KEY_STEP:
			if (a->paused)
				a->step_once = true;
			break;
		case KEY_RESET:
			app_load_scene(a, a->scene, true);
			app_set_status(a, "reset %s", a->scene->name);
			break;
		case KEY_SCENE:
			switch_scene(a, name[0] - '1', name);
			break;
		case KEY_NEXT_SCENE:
			switch_scene(a, (scene_index(a) + 1) % demo_scene_count(), name);
			break;
		case KEY_PREVIOUS_SCENE: {
			int at = scene_index(a);
			switch_scene(a, at > 0 ? at - 1 : demo_scene_count() - 1, name);
			break;
		}
		case KEY_WIREFRAME:
			a->wireframe = !a->wireframe;
			break;
		case KEY_NORMALS:
			a->show_normals = !a->show_normals;
			break;
		case KEY_CONTACTS:
			a->show_contacts = !a->show_contacts;
			app_set_status(a, "contacts %s", a->show_contacts ? "shown" : "hidden");
			break;
		case KEY_CANDIDATES:
			a->show_candidates = !a->show_candidates;
			app_set_status(a, "candidate pairs %s", a->show_candidates ? "shown" : "hidden");
			break;
		case KEY_GUARD_STOPS:
			a->show_guard_stops = !a->show_guard_stops;
			app_set_status(a, "guard stops %s", a->show_guard_stops ? "flashed" : "hidden");
			break;
		case KEY_CONTROLS:
			if (a->have_controls)
				a->show_controls = !a->show_controls;
			else
				app_set_status(a, "no control panel in this build (it needs libimgui-dev)");
			break;
		case KEY_HELP:
			a->show_help = !a->show_help;
			break;
		case KEY_PANEL:
			a->show_panel = !a->show_panel;
			break;
		case KEY_SCREENSHOT:
			a->want_screenshot = true;
			break;
		case KEY_MATERIAL:
			app_next_material(a);
			break;
		case KEY_FRAME:
			app_frame_cloth(a);
			break;
		case KEY_SAVE_TUNING:
			app_save_tuning(a);
			break;
		case KEY_QUIT:
			a->quit = true;
			break;
		}
		return true;
	}
	return false;
}

bool keys_view_only(const char *name)
{
	for (int i = 0; i < key_binding_count(); ++i) {
		const key_binding *b = key_binding_at(i);
		if (!name_matches(b, name))
			continue;
		switch (b->action) {
		case KEY_PAUSE:
		case KEY_WIREFRAME:
		case KEY_NORMALS:
		case KEY_CONTACTS:
		case KEY_CANDIDATES:
		case KEY_GUARD_STOPS:
		case KEY_CONTROLS:
		case KEY_HELP:
		case KEY_PANEL:
		case KEY_SCREENSHOT:
		case KEY_QUIT:
			return true;
		default:
			return false;
		}
	}
	return true;  // no binding: nothing to wait for
}

void keys_print_help(FILE *out)
{
	fprintf(out, "keys (a letter raises a parameter, Shift+letter lowers it; S and B raise the stiffness):\n");
	for (int i = 0; i < key_binding_count(); ++i) {
		const key_binding *b = key_binding_at(i);
		if (b->action == KEY_PARAM) {
			const demo_param *p = b->param;
			fprintf(out, "  %-3s / shift+%-7s %s%s (%s%s%s)\n", b->key, b->key, b->what,
				p->key_lowers ? " (the letter stiffens: lowers the compliance)" : "", p->name,
				p->unit[0] ? ", " : "", p->unit);
		} else {
			fprintf(out, "  %-20s %s\n", b->key, b->what);
		}
	}
	fprintf(out, "mouse: left-drag on the cloth pulls it by a spring (a line shows the pull; colliders and\n"
		     "       contacts can stop it; a pin is pulled the same way and pinned again where it is\n"
		     "       let go), left-drag elsewhere orbits, right-drag or shift+left-drag pans, the wheel zooms;\n"
		     "       the right button held on the cloth holds it there while the left one pulls (tear it)\n");
}

int keys_param_lines(const app *a, char lines[][96], int capacity)
{
	int n = 0;
	for (int i = 0; i < key_binding_count() && n < capacity; ++i) {
		const key_binding *b = key_binding_at(i);
		if (b->action != KEY_PARAM)
			continue;
		char value[32];
		format_value(b->param, b->param->get(a->world, &a->state), value, sizeof value);
		snprintf(lines[n++], 96, "%s/%c\t%s\t%s\t%s", b->key, tolower((unsigned char)b->key[0]), b->what, value,
			 b->param->unit);
	}
	return n;
}

int keys_parse_script(const char *text, key_event *events, int capacity, char *error, size_t cap)
{
	int n = 0;
	const char *s = text;
	while (*s) {
		char *end = NULL;
		long frame = strtol(s, &end, 10);
		if (end == s || *end != ':' || frame < 0) {
			snprintf(error, cap, "--keys: expected FRAME:KEY at '%s'", s);
			return -1;
		}
		s = end + 1;
		size_t len = strcspn(s, ",");
		if (len == 0 || len >= sizeof events[0].key + 6) {
			snprintf(error, cap, "--keys: bad key at '%s'", s);
			return -1;
		}
		if (n == capacity) {
			snprintf(error, cap, "--keys: more than %d key presses", capacity);
			return -1;
		}
		key_event *e = &events[n];
		e->frame = frame;
		e->shift = false;
		char name[32];
		memcpy(name, s, len);
		name[len] = '\0';
		const char *k = name;
		// A letter in either case is the key itself; Shift is always written out.
		if (strncasecmp(k, "shift+", 6) == 0) {
			e->shift = true;
			k += 6;
		}
		snprintf(e->key, sizeof e->key, "%s", k);
		bool known = false;
		for (int i = 0; i < key_binding_count() && !known; ++i)
			known = name_matches(key_binding_at(i), e->key);
		if (!known) {
			snprintf(error, cap, "--keys: unknown key '%s'", e->key);
			return -1;
		}
		n++;
		s += len;
		if (*s == ',')
			s++;
	}
	return n;
}
