#version 330 core
// The shadow map's pass writes depth only.
void main()
{
}
