// SPDX-License-Identifier: MIT
// The control panel (key L), drawn with Dear ImGui (Debian's libimgui-dev, GLFW and OpenGL 3
// back ends): a slider for every parameter of the key table, the scene list with each scene's
// line, the material presets, the views, and the figures of the last step. The keyboard stays
// complete on its own; the panel only offers the same actions to the mouse.
//
// It reads what the last sync copied (app_sync) and changes the world through the same queue
// as the keys: while a step runs, a change waits for it.
extern "C" {
#include "viewer.h"
}

#include <GLFW/glfw3.h>
#include <imgui.h>
#include <backends/imgui_impl_glfw.h>
#include <backends/imgui_impl_opengl3.h>

#include <cmath>
#include <cstdio>

static bool g_ready = false;

extern "C" bool panel_create(GLFWwindow *window)
{
	IMGUI_CHECKVERSION();
	ImGui::CreateContext();
	ImGuiIO &io = ImGui::GetIO();
	io.IniFilename = nullptr;  // no imgui.ini left behind in the working directory
	io.LogFilename = nullptr;
	ImGui::StyleColorsDark();
	// Installs its callbacks after the viewer's and passes every event on to them.
	if (!ImGui_ImplGlfw_InitForOpenGL(window, true) || !ImGui_ImplOpenGL3_Init("#version 330 core")) {
		ImGui::DestroyContext();
		return false;
	}
	g_ready = true;
	return true;
}

extern "C" void panel_destroy(void)
{
	if (!g_ready)
		return;
	ImGui_ImplOpenGL3_Shutdown();
	ImGui_ImplGlfw_Shutdown();
	ImGui::DestroyContext();
	g_ready = false;
}

extern "C" bool panel_wants_mouse(const app *a) { return g_ready && a->show_controls && ImGui::GetIO().WantCaptureMouse; }

extern "C" bool panel_wants_keyboard(const app *a)
{
	return g_ready && a->show_controls && ImGui::GetIO().WantCaptureKeyboard;
}

// A parameter slider: compliances and other multiplied values on a log scale.
static void parameter_row(app *a, int index)
{
	const demo_param *p = demo_param_at(index);
	float value = a->param_values[index];
	char label[96];
	snprintf(label, sizeof label, "%s##%s", p->label, p->name);
	bool changed;
	if (p->is_integer) {
		int v = (int)std::lround(value);
		changed = ImGui::SliderInt(label, &v, (int)p->min, (int)p->max);
		value = (float)v;
	} else {
		ImGuiSliderFlags flags = p->step_kind == DEMO_STEP_MULTIPLY ? ImGuiSliderFlags_Logarithmic : 0;
		const char *format = p->step_kind == DEMO_STEP_MULTIPLY ? "%.3g" : "%.3f";
		changed = ImGui::SliderFloat(label, &value, p->min, p->max, format, flags);
	}
	if (p->unit[0] && ImGui::IsItemHovered())
		ImGui::SetTooltip("%s, key %c (Shift lowers)", p->unit, p->key ? p->key : '-');
	if (changed)
		app_set_param(a, index, value);
}

static void scene_list(app *a)
{
	for (int i = 0; i < demo_scene_count(); ++i) {
		const demo_scene *s = demo_scene_at(i);
		char label[64];
		snprintf(label, sizeof label, "%2d  %s", i + 1, s->name);
		if (ImGui::Selectable(label, a->scene == s))
			app_choose_scene(a, i);
		if (ImGui::IsItemHovered())
			ImGui::SetTooltip("%s", s->description);
	}
}

static void views(app *a)
{
	ImGui::Checkbox("paused (space)", &a->paused);
	ImGui::SameLine();
	if (ImGui::Button("one step (.)"))
		a->step_once = true;
	ImGui::Checkbox("wireframe (X)", &a->wireframe);
	ImGui::SameLine();
	ImGui::Checkbox("normals (N)", &a->show_normals);
	ImGui::Checkbox("contacts (V)", &a->show_contacts);
	ImGui::SameLine();
	ImGui::Checkbox("candidates (E)", &a->show_candidates);
	ImGui::Checkbox("guard stops (Z)", &a->show_guard_stops);
	ImGui::SameLine();
	ImGui::Checkbox("figures (Tab)", &a->show_panel);
	if (ImGui::Button("reset (R)"))
		app_queue_key(a, "R");
	ImGui::SameLine();
	if (ImGui::Button("next material (M)"))
		app_queue_key(a, "M");
	ImGui::SameLine();
	if (ImGui::Button("frame cloth (C)"))
		app_queue_key(a, "C");
	if (ImGui::Button("screenshot (P)"))
		a->want_screenshot = true;
	ImGui::SameLine();
	if (ImGui::Button("save tuning (O)"))
		app_queue_key(a, "O");
}

static void figures(const app *a)
{
	const pbd_world_stats *s = &a->stats;
	ImGui::Text("%.0f fps, step %.2f ms, %.2fx real time", a->fps, s->step_ms, a->real_time_share);
	ImGui::Text("%d particles, %d triangles, %d constraints", s->particles, s->triangles, s->constraints);
	ImGui::Text("contacts: collider %d (+%d tri), v-t %d, e-e %d, particle %d", s->collider_contacts,
		    s->collider_triangle_contacts, s->vertex_triangle_contacts, s->edge_edge_contacts, s->particle_contacts);
	ImGui::Text("candidate pairs %d; guard: %lld pairs swept, %lld stops", s->candidate_pairs,
		    (long long)s->ccd_pairs_tested, (long long)s->ccd_hits);
	ImGui::Text("max stretch %.2f%%, memory %.1f MB", 100.0 * s->max_stretch_error, (double)s->bytes_live / 1e6);
	float top = 1.0f;
	for (int i = 0; i < VIEWER_HISTORY; ++i)
		top = std::fmax(top, a->frame_ms[i]);
	ImGui::PlotLines("frame ms", a->frame_ms, VIEWER_HISTORY, (a->frame_ms_newest + 1) % VIEWER_HISTORY, nullptr, 0.0f,
			 std::fmax(top, 33.4f), ImVec2(0.0f, 48.0f));
}

extern "C" void panel_draw(app *a)
{
	if (!g_ready || !a->show_controls)
		return;
	ImGui_ImplOpenGL3_NewFrame();
	ImGui_ImplGlfw_NewFrame();
	if (a->test_mode)
		ImGui::GetIO().DeltaTime = VIEWER_DT;  // the same pictures on every run
	ImGui::NewFrame();
	const float width = 380.0f;
	ImGui::SetNextWindowPos(ImVec2((float)a->width - width - 10.0f, 10.0f), ImGuiCond_Always);
	ImGui::SetNextWindowSize(ImVec2(width, (float)a->height - 20.0f), ImGuiCond_Always);
	ImGui::Begin("pbd controls (L hides)", &a->show_controls, ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoResize);
	if (ImGui::CollapsingHeader("parameters", ImGuiTreeNodeFlags_DefaultOpen)) {
		ImGui::PushItemWidth(170.0f);
		for (int i = 0; i < demo_param_count() && i < VIEWER_MAX_PARAMS; ++i)
			parameter_row(a, i);
		ImGui::PopItemWidth();
	}
	if (ImGui::CollapsingHeader("scenes", ImGuiTreeNodeFlags_DefaultOpen))
		scene_list(a);
	if (ImGui::CollapsingHeader("views and actions", ImGuiTreeNodeFlags_DefaultOpen))
		views(a);
	if (ImGui::CollapsingHeader("figures", ImGuiTreeNodeFlags_DefaultOpen))
		figures(a);
	ImGui::End();
	ImGui::Render();
	ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
}
