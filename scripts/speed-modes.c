// What this machine's speed modes are (README, "What the modes are"): a loop of independent integer
// operations and a chain of dependent floating-point ones, each on one thread, then on two at once,
// three times. A tenant sharing a physical core (simultaneous multithreading) slows the first and
// not the second. Build and run: cc -O2 -pthread scripts/speed-modes.c -o /tmp/speed-modes && /tmp/speed-modes
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <time.h>
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static volatile uint64_t sink;
static void *work(void *arg){
  uint64_t a=1,b=2,c=3,d=4,e=5,f=6;
  long n=(long)arg;
  for(long i=0;i<n;i++){a+=i;b^=a;c+=b;d^=i;e+=d;f^=e; __asm__ volatile(""::"r"(a),"r"(b),"r"(c),"r"(d),"r"(e),"r"(f));}
  sink=a+b+c+d+e+f; return 0;}
static void *chain(void *arg){
  double x=1.0; long n=(long)arg;
  for(long i=0;i<n;i++){x=x*1.0000001+1e-9;}
  sink=(uint64_t)x; return 0;}
int main(){
  long n=300000000;
  for(int k=0;k<3;k++){
  for(int kind=0;kind<2;kind++){
  void*(*fn)(void*)= kind? chain: work;
  double t0=now(); fn((void*)n); double t1=now()-t0;
  pthread_t th[2]; t0=now();
  for(int i=0;i<2;i++) pthread_create(&th[i],0,fn,(void*)n);
  for(int i=0;i<2;i++) pthread_join(th[i],0);
  double t2=now()-t0;
  printf("%s: 1 thread %.3f s, 2 threads %.3f s -> scaling %.2fx\n", kind?"latency-bound":"ILP-bound", t1, t2, 2*t1/t2);
  }}
}
