#version 330 core
// Overlay in pixels: (0, 0) is the top left corner.
layout(location = 0) in vec2 in_position;
layout(location = 1) in vec4 in_color;
uniform vec2 u_screen;
out vec4 v_color;
void main()
{
	v_color = in_color;
	vec2 ndc = vec2(in_position.x / u_screen.x * 2.0 - 1.0, 1.0 - in_position.y / u_screen.y * 2.0);
	gl_Position = vec4(ndc, 0.0, 1.0);
}
