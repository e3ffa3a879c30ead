#version 330 core
// Cloth: positions and normals streamed from the engine every frame, and the positions it
// started from, which carry its woven pattern.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
layout(location = 2) in vec3 in_rest;
uniform mat4 u_view_proj;
out vec3 v_position;
out vec3 v_normal;
out vec3 v_rest;
void main()
{
	v_position = in_position;
	v_normal = in_normal;
	v_rest = in_rest;
	gl_Position = u_view_proj * vec4(in_position, 1.0);
}
