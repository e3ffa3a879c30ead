#version 330 core
// A large quad in a plane collider's local xz plane.
layout(location = 0) in vec2 in_corner;     // -1..1
uniform mat4 u_view_proj;
uniform mat4 u_model;
uniform float u_extent;
out vec2 v_local;
out vec3 v_world;
out vec3 v_normal;
void main()
{
	v_local = in_corner * u_extent;
	vec4 world = u_model * vec4(v_local.x, 0.0, v_local.y, 1.0);
	v_world = world.xyz;
	v_normal = mat3(u_model) * vec3(0.0, 1.0, 0.0);
	gl_Position = u_view_proj * world;
}
