#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Writes the project's sample cloth meshes (Wavefront OBJ, metres, y up):

  tablecloth.obj  a round tablecloth, 1.6 m across, in concentric rings (not a grid)
  skirt.obj       a circle skirt: an annulus around the waist, dished a little, with far more
                  fabric at the hem than a cone would have, so that it hangs in folds and flares
                  when twirled; its seam is written twice (as exporters do), so load it with
                  welding to close it
  flag.obj        a 1.5 m x 1 m flag, its hoist edge along x = 0, in a quad-dominant mesh with
                  some quads written as polygons (f with four corners)

Run from this directory: python3 make_meshes.py
"""
import math


def write(path, comment, vertices, faces):
    with open(path, "w") as f:
        f.write("# %s\n# made by make_meshes.py\n" % comment)
        for v in vertices:
            f.write("v %.6f %.6f %.6f\n" % v)
        for face in faces:
            f.write("f " + " ".join(str(i + 1) for i in face) + "\n")


def tablecloth(radius=0.8, rings=14):
    vertices = [(0.0, 0.0, 0.0)]
    ring_start = [0]
    for k in range(1, rings + 1):
        ring_start.append(len(vertices))
        r = radius * k / rings
        for i in range(6 * k):
            a = 2 * math.pi * i / (6 * k)
            vertices.append((r * math.cos(a), 0.0, r * math.sin(a)))
    faces = []
    for i in range(6):  # the centre's fan
        faces.append((0, 1 + (i + 1) % 6, 1 + i))
    for k in range(2, rings + 1):
        inner_n = 6 * (k - 1)
        outer_n = 6 * k
        inner = ring_start[k - 1]
        outer = ring_start[k]
        # Walk both rings together, always advancing the one that lags behind in angle.
        i = j = 0
        while i < inner_n or j < outer_n:
            ai = (i + 1) / inner_n
            aj = (j + 1) / outer_n
            a = inner + (i % inner_n)
            b = outer + (j % outer_n)
            if j < outer_n and (aj <= ai or i >= inner_n):
                c = outer + ((j + 1) % outer_n)
                faces.append((a, c, b))
                j += 1
            else:
                c = inner + ((i + 1) % inner_n)
                faces.append((a, c, b))
                i += 1
    return vertices, faces


def skirt(waist=0.18, hem=0.7, drop=0.2, rings=12, segments=48):
    vertices = []
    for k in range(rings + 1):
        t = k / rings
        r = waist + (hem - waist) * t
        y = -drop * t
        for i in range(segments + 1):  # the last column repeats the first: the seam
            a = 2 * math.pi * i / segments
            vertices.append((r * math.cos(a), y, r * math.sin(a)))
    faces = []
    w = segments + 1
    for k in range(rings):
        for i in range(segments):
            a, b = k * w + i, k * w + i + 1
            c, d = a + w, b + w
            if (i + k) % 2 == 0:
                faces += [(a, b, d), (a, d, c)]
            else:
                faces += [(a, b, c), (b, d, c)]
    return vertices, faces


def flag(width=1.5, height=1.0, nx=24, ny=16):
    vertices = []
    for j in range(ny + 1):
        for i in range(nx + 1):
            vertices.append((width * i / nx, height * (1 - j / ny), 0.0))
    faces = []
    w = nx + 1
    for j in range(ny):
        for i in range(nx):
            a, b = j * w + i, j * w + i + 1
            c, d = a + w, b + w
            if (i * 7 + j * 3) % 5 == 0:
                faces.append((a, b, d, c))  # a quad: the reader splits it
            elif (i + j) % 2 == 0:
                faces += [(a, b, d), (a, d, c)]
            else:
                faces += [(a, b, c), (b, d, c)]
    return vertices, faces


if __name__ == "__main__":
    write("tablecloth.obj", "round tablecloth, 1.6 m across, concentric rings", *tablecloth())
    write("skirt.obj", "circle skirt, waist radius 0.18 m, 0.52 m long; seam written twice", *skirt())
    write("flag.obj", "flag 1.5 m x 1 m, hoist along x = 0", *flag())
