! mpi_app.f90: the Fortran twin of mpi_app.c for the MPI tests (tests/mpi/mpi_test.sh),
! through the `mpi` module. It counts its own calls and the bytes of its messages and
! writes them to $APP_MANIFEST.RANK in the same JSON form, with what it sent to each rank.
! Fortran's own: CHARACTER arguments (names, info keys and values, an error string: their
! lengths are hidden arguments), what it set and got back written to the manifest too
! ("names"); completions through arrays of requests (MPI_Waitall, MPI_Waitany and
! MPI_Waitsome, whose indices count from 1), MPI_Wtime and MPI_Wtick.
program mpi_app
  use mpi
  implicit none
  integer, parameter :: names = 31
  character(len=25) :: name(names)
  integer :: calls(names) = 0
  integer :: bytes(names) = 0
  integer :: ierr, rank, nranks, partner, left, right, i
  integer :: requests(2), reversed, reversed_rank, group, world, next(1), translated(1)
  integer :: info, length, which, outcount, indices(2), done, k, sizes(2)
  logical :: found
  character(len=MPI_MAX_PROCESSOR_NAME) :: host
  character(len=MPI_MAX_OBJECT_NAME) :: comm_name
  character(len=MPI_MAX_ERROR_STRING) :: message
  character(len=64) :: info_value
  double precision :: started, tick
  integer :: wide(128)
  double precision :: pair(100), local(16), sums(16)
  integer :: ring_out(256), ring_in(256), block(64)
  integer, allocatable :: sent_bytes(:), sent_messages(:)

  name = [character(len=25) :: 'MPI_Init', 'MPI_Comm_rank', 'MPI_Comm_size', 'MPI_Send', &
          'MPI_Recv', 'MPI_Irecv', 'MPI_Isend', 'MPI_Wait', 'MPI_Bcast', 'MPI_Allreduce', &
          'MPI_Barrier', 'MPI_Finalize', 'MPI_Comm_split', 'MPI_Sendrecv', 'MPI_Comm_group', &
          'MPI_Group_translate_ranks', 'MPI_Group_free', 'MPI_Comm_free', &
          'MPI_Get_processor_name', 'MPI_Comm_set_name', 'MPI_Comm_get_name', &
          'MPI_Info_create', 'MPI_Info_set', 'MPI_Info_get', 'MPI_Info_free', &
          'MPI_Error_string', 'MPI_Wtime', 'MPI_Wtick', 'MPI_Waitall', 'MPI_Waitany', &
          'MPI_Waitsome']

  call mpi_init(ierr)
  call counted(1, 0)
  call mpi_comm_rank(MPI_COMM_WORLD, rank, ierr)
  call counted(2, 0)
  call mpi_comm_size(MPI_COMM_WORLD, nranks, ierr)
  call counted(3, 0)
  allocate (sent_bytes(0:nranks - 1), sent_messages(0:nranks - 1))
  sent_bytes = 0
  sent_messages = 0

  ! Blocking between pairs (0-1, 2-3, ...): 100 doubles each way.
  pair = rank
  partner = ieor(rank, 1)
  if (partner < nranks) then
    if (mod(rank, 2) == 0) then
      call mpi_send(pair, 100, MPI_DOUBLE_PRECISION, partner, 1, MPI_COMM_WORLD, ierr)
      call counted(4, 800)
      call sent(partner, 800)
      call mpi_recv(pair, 100, MPI_DOUBLE_PRECISION, partner, 2, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
      call counted(5, 800)
    else
      call mpi_recv(pair, 100, MPI_DOUBLE_PRECISION, partner, 1, MPI_COMM_WORLD, &
                    MPI_STATUS_IGNORE, ierr)
      call counted(5, 800)
      call mpi_send(pair, 100, MPI_DOUBLE_PRECISION, partner, 2, MPI_COMM_WORLD, ierr)
      call counted(4, 800)
      call sent(partner, 800)
    end if
  end if

  ! Non-blocking in a ring: 256 integers to the right; each completion counts the bytes
  ! of the request it completed.
  left = mod(rank + nranks - 1, nranks)
  right = mod(rank + 1, nranks)
  ring_out = [(rank * 1000 + i, i = 1, 256)]
  call mpi_irecv(ring_in, 256, MPI_INTEGER, left, 3, MPI_COMM_WORLD, requests(1), ierr)
  call counted(6, 1024)
  call mpi_isend(ring_out, 256, MPI_INTEGER, right, 3, MPI_COMM_WORLD, requests(2), ierr)
  call counted(7, 1024)
  call sent(right, 1024)
  call mpi_wait(requests(2), MPI_STATUS_IGNORE, ierr)
  call counted(8, 1024)
  call mpi_wait(requests(1), MPI_STATUS_IGNORE, ierr)
  call counted(8, 1024)
  if (ring_in(5) /= left * 1000 + 5) call mpi_abort(MPI_COMM_WORLD, 1, ierr)

  ! The same ring again, completed at once (MPI_Waitall: both requests' bytes), then one
  ! by one (MPI_Waitany, MPI_Waitsome): a receive of up to 128 integers (512 bytes named)
  ! and a send of 64 (256 bytes), told apart by their bytes.
  started = mpi_wtime()
  call counted(27, 0)
  call mpi_irecv(ring_in, 256, MPI_INTEGER, left, 8, MPI_COMM_WORLD, requests(1), ierr)
  call counted(6, 1024)
  call mpi_isend(ring_out, 256, MPI_INTEGER, right, 8, MPI_COMM_WORLD, requests(2), ierr)
  call counted(7, 1024)
  call sent(right, 1024)
  call mpi_waitall(2, requests, MPI_STATUSES_IGNORE, ierr)
  call counted(29, 2048)
  sizes = [512, 256]
  wide = rank
  do k = 1, 2
    call mpi_irecv(ring_in, 128, MPI_INTEGER, left, 8 + k, MPI_COMM_WORLD, requests(1), ierr)
    call counted(6, 512)
    call mpi_isend(wide, 64, MPI_INTEGER, right, 8 + k, MPI_COMM_WORLD, requests(2), ierr)
    call counted(7, 256)
    call sent(right, 256)
    done = 0
    do while (done < 2)
      if (k == 1) then
        call mpi_waitany(2, requests, which, MPI_STATUS_IGNORE, ierr)
        call counted(30, sizes(which))
        done = done + 1
      else
        call mpi_waitsome(2, requests, outcount, indices, MPI_STATUSES_IGNORE, ierr)
        call counted(31, sum(sizes(indices(1:outcount))))
        done = done + outcount
      end if
    end do
  end do
  tick = mpi_wtick()
  call counted(28, 0)
  if (mpi_wtime() < started .or. tick <= 0) call mpi_abort(MPI_COMM_WORLD, 1, ierr)
  call counted(27, 0)

  ! Strings: the processor's name, a name set and read back, an info key and value, an
  ! error string.
  call mpi_get_processor_name(host, length, ierr)
  call counted(19, 0)
  call mpi_comm_set_name(MPI_COMM_WORLD, 'tracer world', ierr)
  call counted(20, 0)
  comm_name = 'not set'
  call mpi_comm_get_name(MPI_COMM_WORLD, comm_name, length, ierr)
  call counted(21, 0)
  call mpi_info_create(info, ierr)
  call counted(22, 0)
  call mpi_info_set(info, 'tracer_key', 'a value of the app', ierr)
  call counted(23, 0)
  info_value = 'not set'
  call mpi_info_get(info, 'tracer_key', len(info_value), info_value, found, ierr)
  call counted(24, 0)
  if (.not. found) info_value = 'not found'
  call mpi_info_free(info, ierr)
  call counted(25, 0)
  call mpi_error_string(MPI_ERR_TAG, message, length, ierr)
  call counted(26, 0)

  block = 0
  call mpi_bcast(block, 64, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
  call counted(9, 256)
  local = rank
  call mpi_allreduce(local, sums, 16, MPI_DOUBLE_PRECISION, MPI_SUM, MPI_COMM_WORLD, ierr)
  call counted(10, 128)
  call mpi_barrier(MPI_COMM_WORLD, ierr)
  call counted(11, 0)

  ! A split of the world in reverse order: 10 doubles to the next rank of it, the left
  ! neighbour in the world, named by its rank in the split; the program finds its world
  ! rank itself.
  call mpi_comm_split(MPI_COMM_WORLD, 0, nranks - rank, reversed, ierr)
  call counted(13, 0)
  call mpi_comm_rank(reversed, reversed_rank, ierr)
  call counted(2, 0)
  next(1) = mod(reversed_rank + 1, nranks)
  call mpi_sendrecv(pair, 10, MPI_DOUBLE_PRECISION, next(1), 4, local, 10, &
                    MPI_DOUBLE_PRECISION, mod(reversed_rank + nranks - 1, nranks), 4, reversed, &
                    MPI_STATUS_IGNORE, ierr)
  call counted(14, 80)
  call mpi_comm_group(reversed, group, ierr)
  call counted(15, 0)
  call mpi_comm_group(MPI_COMM_WORLD, world, ierr)
  call counted(15, 0)
  call mpi_group_translate_ranks(group, 1, next, world, translated, ierr)
  call counted(16, 0)
  call sent(translated(1), 80)
  call mpi_group_free(group, ierr)
  call counted(17, 0)
  call mpi_group_free(world, ierr)
  call counted(17, 0)
  call mpi_comm_free(reversed, ierr)
  call counted(18, 0)
  call mpi_finalize(ierr)
  call counted(12, 0)
  call write_manifest()

contains

  subroutine sent(peer, moved)
    integer, intent(in) :: peer, moved
    sent_bytes(peer) = sent_bytes(peer) + moved
    sent_messages(peer) = sent_messages(peer) + 1
  end subroutine sent

  subroutine counted(which, moved)
    integer, intent(in) :: which, moved
    if (ierr /= MPI_SUCCESS) stop 1
    calls(which) = calls(which) + 1
    bytes(which) = bytes(which) + moved
  end subroutine counted

  subroutine write_manifest()
    character(len=4096) :: base
    character(len=4200) :: path
    integer :: length, status, unit, k
    logical :: first
    call get_environment_variable('APP_MANIFEST', base, length, status)
    if (status /= 0) return
    write (path, '(a, ".", i0)') trim(base), rank
    open (newunit=unit, file=trim(path), status='replace', action='write')
    write (unit, '(a, i0, a)', advance='no') '{"rank": ', rank, ', "calls": {'
    do k = 1, names
      if (k > 1) write (unit, '(a)', advance='no') ', '
      write (unit, '(3a, i0)', advance='no') '"', trim(name(k)), '": ', calls(k)
    end do
    write (unit, '(a)', advance='no') '}, "bytes": {'
    do k = 1, names
      if (k > 1) write (unit, '(a)', advance='no') ', '
      write (unit, '(3a, i0)', advance='no') '"', trim(name(k)), '": ', bytes(k)
    end do
    write (unit, '(a)', advance='no') '}, "sent": {'
    first = .true.
    do k = 0, nranks - 1
      if (sent_messages(k) == 0) cycle
      if (.not. first) write (unit, '(a)', advance='no') ', '
      first = .false.
      write (unit, '(a, i0, a, i0, a, i0, a)', advance='no') '"', k, '": {"bytes": ', &
        sent_bytes(k), ', "messages": ', sent_messages(k), '}'
    end do
    write (unit, '(a)', advance='no') '}, "names": {"processor": "'
    write (unit, '(3a)', advance='no') trim(host), '", "comm_set": "tracer world", "comm_got": "', &
      trim(comm_name)
    write (unit, '(3a)') '", "info_set": "a value of the app", "info_got": "', trim(info_value), &
      '"}}'
    close (unit)
  end subroutine write_manifest
end program mpi_app
