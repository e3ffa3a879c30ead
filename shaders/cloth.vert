#version 330 core
// Cloth: positions and normals streamed from the engine every frame.
layout(location = 0) in vec3 in_position;
layout(location = 1) in vec3 in_normal;
uniform mat4 u_view_proj;
out vec3 v_position;
out vec3 v_normal;
void main()
{
	v_position = in_position;
	v_normal = in_normal;
	gl_Position = u_view_proj * vec4(in_position, 1.0);
}
