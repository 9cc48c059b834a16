# Crafted streams of the receive feature tests: what only mkstream can
# make (paths beyond PATH_MAX, FILEATTR, fs-verity, incrementals onto
# immutable inodes).  Shared by receive-features.sh (btrfs) and
# receive-anywhere.sh (plain directories); source it, then call
# crafted_streams, which writes them into $st and sets their UUIDs
# (U, U2, P, C, U3) and the long path's component (comp).

crafted_streams() {
U=0a0a0a0a-1111-4222-8333-444444444444

# A path of 30 components of 200 bytes (6 KiB).
comp=$(printf 'd%.0s' $(seq 1 200))
{
	echo "stream version=1"
	echo "subvol path=long uuid=$U ctransid=1"
	p=
	for i in $(seq 1 30); do
		p=${p:+$p/}$comp$i
		echo "mkdir path=$p ino=$((256 + i))"
	done
	echo "mkfile path=$p/file ino=400"
	echo "write path=$p/file file_offset=0 data=text:deep"
	echo "rename path=$p/file path_to=$p/renamed"
	echo "set_xattr path=$p/renamed xattr_name=user.x xattr_data=text:y"
	echo "utimes path=$p/renamed atime=1 mtime=2 ctime=3"
	echo "end"
} | "$MKSTREAM" -o $st/long || return 1

python3 - > $st/zlib.hex <<'PY' || return 1
import zlib
ext = b"".join(b"nocow line %05d\n" % i for i in range(500))[:8192]
print(zlib.compress(ext).hex())
open("/tmp/streams/ext", "wb").write(ext)
PY
U2=0b0b0b0b-1111-4222-8333-444444444444
"$MKSTREAM" -o $st/flags <<EOF || return 1
stream version=2
subvol path=flags uuid=$U2 ctransid=3
mkdir path=imm ino=257
fileattr path=imm fileattr=0x40
mkfile path=o258-3-0 ino=258
rename path=o258-3-0 path_to=imm/inside
write path=imm/inside file_offset=0 data=text:inside
utimes path=imm/inside atime=5 mtime=6 ctime=7
utimes path=imm atime=8 mtime=9 ctime=10
mkfile path=app ino=259
write path=app file_offset=0 data=text:appended
fileattr path=app fileattr=0x380
chmod path=app mode=0600
utimes path=app atime=11 mtime=12 ctime=13
mkfile path=nocow ino=260
fileattr path=nocow fileattr=0x3
encoded_write path=nocow file_offset=0 unencoded_file_len=8192 unencoded_len=8192 unencoded_offset=0 compression=1 data=hex:$(cat $st/zlib.hex)
mkfile path=comp ino=261
fileattr path=comp fileattr=0x800
end
EOF

P=0d0d0d0d-1111-4222-8333-444444444444 C=0e0e0e0e-1111-4222-8333-444444444444
"$MKSTREAM" -o $st/locked <<EOF || return 1
stream version=2
subvol path=locked uuid=$P ctransid=5
mkdir path=d ino=257
mkfile path=d/f ino=258
write path=d/f file_offset=0 data=text:original
fileattr path=d/f fileattr=0x40
mkfile path=a ino=259
write path=a file_offset=0 data=text:log
fileattr path=a fileattr=0x80
mkfile path=gone ino=260
fileattr path=gone fileattr=0x40
fileattr path=d fileattr=0x40
end
EOF
"$MKSTREAM" -o $st/unlocked <<EOF || return 1
stream version=2
snapshot path=unlocked uuid=$C ctransid=6 clone_uuid=$P clone_ctransid=5
write path=d/f file_offset=0 data=text:changed!
mkfile path=o300-6-0 ino=300
rename path=o300-6-0 path_to=d/new
utimes path=d atime=1 mtime=2 ctime=3
write path=a file_offset=0 data=text:rewritten
fileattr path=a fileattr=0
unlink path=gone
end
EOF

U3=0c0c0c0c-1111-4222-8333-444444444444
"$MKSTREAM" -o $st/verity <<EOF || return 1
stream version=3
subvol path=verity uuid=$U3 ctransid=4
mkfile path=f ino=257
write path=f file_offset=0 data=fill:20000:0x61
enable_verity path=f verity_algorithm=1 verity_block_size=4096 verity_salt_data=hex:0102030405 verity_sig_data=hex:
utimes path=f atime=1 mtime=2 ctime=3
mkfile path=g ino=258
write path=g file_offset=0 data=text:plain
enable_verity path=g verity_algorithm=2 verity_block_size=4096 verity_salt_data=hex: verity_sig_data=hex:
end
EOF
}
