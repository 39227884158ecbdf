"""Runs a command of a built image the way a container runtime would, minus the namespaces.

Usage: python run_image.py ROOTFS INSPECT_JSON [--healthcheck | --entrypoint PATH] [--env NAME=VALUE]... [ARG...]

From the image's config (`buildah inspect --type image`): chroot into the mounted root
file system, change to its WorkingDir, drop to its User (no supplementary groups), and
exec its Entrypoint followed by ARGs (or, with --healthcheck, its HEALTHCHECK command)
with only its Env plus the --env values (what a pod's Secret would add). Needs root
(chroot, setuid). Nothing else is shared with the host but the network and the process
table, which is why it can stand in for a runtime on a machine that cannot start one.
"""

import json
import os
import sys


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    rootfs, inspect = args[0], json.load(open(args[1]))
    args = args[2:]
    config = inspect["Docker"]["config"]
    command = list(config.get("Entrypoint") or []) + list(config.get("Cmd") or [])
    env = dict(e.split("=", 1) for e in config.get("Env") or [])
    while args and args[0].startswith("--") and args[0] in ("--healthcheck", "--entrypoint", "--env"):
        flag = args.pop(0)
        if flag == "--healthcheck":
            test = config["Healthcheck"]["Test"]
            if test[0] != "CMD":
                sys.exit(f"unsupported health check form {test[0]} (the image has no shell)")
            command = test[1:]
        elif flag == "--entrypoint":
            command = [args.pop(0)]
        else:
            name, _, value = args.pop(0).partition("=")
            env[name] = value
    command += args
    uid, _, gid = (config.get("User") or "0:0").partition(":")
    os.chroot(rootfs)
    os.chdir(config.get("WorkingDir") or "/")
    os.setgroups([])
    os.setgid(int(gid or uid))
    os.setuid(int(uid))
    os.execve(command[0], command, env)


if __name__ == "__main__":
    main()
